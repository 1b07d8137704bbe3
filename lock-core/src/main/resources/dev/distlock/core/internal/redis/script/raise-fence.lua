-- Raise a lock's fencing counter to at least a given token, only while the owner holds the lock.
-- RedLock runs it on the nodes that granted, with the largest token of the grant, so that the
-- next grant on any of these nodes draws a larger token (see RedLockQuorum).
-- KEYS[1] lock hash   KEYS[2] its fencing counter <lock>:fence
-- ARGV[1] owner id    ARGV[2] token   ARGV[3] TTL of the fencing counter in ms
-- Returns 1 when the owner holds the lock (counter now >= token), 0 when it does not.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
    return 0
end
local fence = KEYS[2]
local current = tonumber(redis.call('GET', fence) or '0')
if current < tonumber(ARGV[2]) then
    redis.call('SET', fence, ARGV[2], 'PX', ARGV[3])
end
return 1
