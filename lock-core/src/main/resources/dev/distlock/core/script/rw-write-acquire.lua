-- Acquire or re-enter the write hold: granted when nobody holds the lock (or owner already writes).
-- KEYS[1] read/write lock hash   KEYS[2] fencing counter of this lock
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter in ms
-- Returns {1, token, hold count} when granted (re-entry keeps the token), {0, ms the lock stays
-- busy at most, 0} when busy, {-1, 0, 0} when owner holds only a read hold (upgrade: would wait for itself).
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
if writerEnd > 0 then
    if redis.call('HEXISTS', lock, 'w:' .. owner) == 0 then
        return {0, redis.call('PTTL', lock), 0}
    end
    local count = redis.call('HINCRBY', lock, 'w:' .. owner, 1)
    redis.call('HSET', lock, 'wd:' .. owner, now + lease)
    settle(lock, now)
    return {1, tonumber(redis.call('HGET', lock, 'wt:' .. owner)), count}
end
if writerEnd == 0 then
    if redis.call('HEXISTS', lock, 'r:' .. owner) == 1 then
        return {-1, 0, 0}
    end
    return {0, redis.call('PTTL', lock), 0}
end
local token = nextToken(fence, ARGV[3])
redis.call('HSET', lock, 'w:' .. owner, 1, 'wt:' .. owner, token, 'wd:' .. owner, now + lease)
settle(lock, now)
return {1, token, 1}
