-- Acquire a reentrant lock, or report how long it stays busy.
-- KEYS[1] lock hash (field = owner id -> hold count; field '~token' -> fencing token)
-- KEYS[2] fencing counter of this lock
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter in ms
-- Returns {1, token, hold count} when granted (re-entry keeps the token), {0, remaining ms, 0} when busy.
local lock, fence = KEYS[1], KEYS[2]
local owner, lease = ARGV[1], ARGV[2]
if redis.call('EXISTS', lock) == 0 then
    if redis.call('EXISTS', fence) == 0 then
        -- Seed from the server clock (microseconds) so tokens keep growing after the counter expired.
        local now = redis.call('TIME')
        redis.call('SET', fence, now[1] .. string.format('%06d', tonumber(now[2])))
    end
    local token = redis.call('INCR', fence)
    redis.call('PEXPIRE', fence, ARGV[3])
    redis.call('HSET', lock, owner, 1, '~token', token)
    redis.call('PEXPIRE', lock, lease)
    return {1, token, 1}
end
if redis.call('HEXISTS', lock, owner) == 1 then
    local count = redis.call('HINCRBY', lock, owner, 1)
    redis.call('PEXPIRE', lock, lease)
    return {1, tonumber(redis.call('HGET', lock, '~token')), count}
end
return {0, redis.call('PTTL', lock), 0}
