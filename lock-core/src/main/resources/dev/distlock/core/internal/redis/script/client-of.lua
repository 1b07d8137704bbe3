-- Shared prelude: LockScript prepends it to the reentrant lock's scripts that tell clients apart.
-- clientOf(owner) is the client part of an owner id <client id>:<thread or handle>.
local function clientOf(owner)
    return string.match(owner, '^([^:]*)')
end
