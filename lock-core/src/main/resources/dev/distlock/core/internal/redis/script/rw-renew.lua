-- Extend the lease of one read or write hold, only while its owner still holds the same grant
-- (never revives one). The hash TTL becomes the longest lease left.
-- KEYS[1] read/write lock hash
-- ARGV[1] hold kind ('r' or 'w')   ARGV[2] owner id   ARGV[3] grant id of the hold   ARGV[4] lease in ms
-- Returns 1 renewed, 0 not held by this grant.
-- (rw-settle.lua, prepended at load time, defines settle(lock, now) and sets now to the server time in ms.)
local lock, kind, owner = KEYS[1], ARGV[1], ARGV[2]
if redis.call('HEXISTS', lock, 'mode') == 0 then
    return 0
end
settle(lock, now)
if redis.call('HEXISTS', lock, kind .. ':' .. owner) == 0 or redis.call('HGET', lock, kind .. 'q:' .. owner) ~= ARGV[3] then
    return 0
end
redis.call('HSET', lock, kind .. 'd:' .. owner, now + tonumber(ARGV[4]))
settle(lock, now)
return 1
