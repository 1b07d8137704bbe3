-- Acquire or re-enter a read hold: granted unless another owner holds the write lock.
-- KEYS[1] read/write lock hash   KEYS[2] fencing counter of this lock
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter in ms
-- Returns {1, token, hold count} when granted (a new read hold gets a fresh token, re-entry keeps it),
-- {0, ms until the blocking lease ends, 0} when busy.
-- (rw-settle.lua, prepended at load time, defines settle(lock, now) and sets now to the server time in ms.)
-- A fresh fencing token, from the same counter and TIME seeding as acquire.lua.
local function nextToken(fence, fenceTtl)
    if redis.call('EXISTS', fence) == 0 then
        redis.call('SET', fence, clock[1] .. string.format('%06d', tonumber(clock[2])))
    end
    local token = redis.call('INCR', fence)
    redis.call('PEXPIRE', fence, fenceTtl)
    return token
end
local lock, fence, owner, lease = KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2])
if redis.call('EXISTS', lock) == 1 and redis.call('HEXISTS', lock, 'mode') == 0 then
    return {0, redis.call('PTTL', lock), 0} -- a lock of another kind holds this name
end
local writerEnd = settle(lock, now)
if writerEnd > 0 and redis.call('HEXISTS', lock, 'w:' .. owner) == 0 then
    return {0, writerEnd - now, 0}
end
local count, token
if redis.call('HEXISTS', lock, 'r:' .. owner) == 1 then
    count = redis.call('HINCRBY', lock, 'r:' .. owner, 1)
    token = tonumber(redis.call('HGET', lock, 'rt:' .. owner))
else
    count, token = 1, nextToken(fence, ARGV[3])
    redis.call('HSET', lock, 'r:' .. owner, 1, 'rt:' .. owner, token)
end
redis.call('HSET', lock, 'rd:' .. owner, now + lease)
settle(lock, now)
return {1, token, count}
