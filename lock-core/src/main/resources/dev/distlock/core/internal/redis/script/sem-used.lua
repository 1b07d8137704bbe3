-- How many permits of a semaphore are held (holders whose lease ended are dropped first).
-- KEYS[1] semaphore hash
-- Returns the permits held.
-- (sem-settle.lua, prepended at load time, defines settle and sets now to the server time in ms.)
if redis.call('HEXISTS', KEYS[1], '~n') == 0 then
    return 0
end
local used = settle(KEYS[1], now)
return used
