-- Extend the lease of one holder of a semaphore, only while it still holds the same grant (never revives
-- one). The hash TTL becomes the longest lease left.
-- KEYS[1] semaphore hash
-- ARGV[1] owner id   ARGV[2] grant id of the hold   ARGV[3] lease in ms
-- Returns 1 renewed, 0 not held by this grant.
-- (sem-settle.lua, prepended at load time, defines settle and sets now to the server time in ms.)
local sem, owner = KEYS[1], ARGV[1]
if redis.call('HEXISTS', sem, '~n') == 0 then
    return 0
end
settle(sem, now)
if redis.call('HGET', sem, 'q:' .. owner) ~= ARGV[2] then
    return 0
end
local lease = tonumber(ARGV[3])
redis.call('HSET', sem, 'd:' .. owner, digits(now + lease))
if redis.call('PTTL', sem) < lease then
    redis.call('PEXPIRE', sem, lease)
end
return 1
