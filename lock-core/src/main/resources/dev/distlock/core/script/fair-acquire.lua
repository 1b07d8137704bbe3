-- Acquire a fair lock in arrival order, or queue the caller and report how long it may sleep.
-- KEYS[1] lock hash (same layout as acquire.lua)   KEYS[2] fencing counter of this lock
-- KEYS[3] queue: list of waiting owners, oldest first   KEYS[4] timeouts: zset owner -> deadline (server ms)
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter in ms
-- ARGV[4] ms the caller still waits (0 = a single attempt, never queued)
-- ARGV[5] recheck ms: the longest a waiter sleeps between attempts
-- ARGV[6] margin ms: how late past its next attempt a waiter may be before it counts as gone
-- ARGV[7] channel prefix (a waiter's own channel is prefix .. owner)   ARGV[8] wake-up message
-- Returns {1, token, hold count} when granted (re-entry keeps the token), {0, ms to sleep at most, 0} when not.
local lock, fence, queue, timeouts = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local owner, lease = ARGV[1], ARGV[2]
local waitMs, recheck, margin = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])

if redis.call('HEXISTS', lock, owner) == 1 then
    local count = redis.call('HINCRBY', lock, owner, 1)
    redis.call('PEXPIRE', lock, lease)
    return {1, tonumber(redis.call('HGET', lock, '~token')), count}
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
-- Waiters that stopped refreshing their deadline (crashed, paused, gone) leave from the head.
local dropped = false
local head = redis.call('LINDEX', queue, 0)
while head do
    local deadline = redis.call('ZSCORE', timeouts, head)
    if deadline and tonumber(deadline) > now then
        break
    end
    redis.call('LPOP', queue)
    redis.call('ZREM', timeouts, head)
    dropped = true
    head = redis.call('LINDEX', queue, 0)
end

local free = redis.call('EXISTS', lock) == 0
if free and (not head or head == owner) then
    if head then
        redis.call('LPOP', queue)
        redis.call('ZREM', timeouts, owner)
    end
    if redis.call('EXISTS', fence) == 0 then
        -- Seed from the server clock (microseconds) so tokens keep growing after the counter expired.
        redis.call('SET', fence, time[1] .. string.format('%06d', tonumber(time[2])))
    end
    local token = redis.call('INCR', fence)
    redis.call('PEXPIRE', fence, ARGV[3])
    redis.call('HSET', lock, owner, 1, '~token', token)
    redis.call('PEXPIRE', lock, lease)
    return {1, token, 1}
end

if dropped and free then
    -- The new head may sleep for a whole recheck period: its turn came without a release, so tell it.
    redis.call('PUBLISH', ARGV[7] .. head, ARGV[8])
end
local queued = redis.call('ZSCORE', timeouts, owner)
if waitMs > 0 or queued then
    if not queued then
        redis.call('RPUSH', queue, owner)
    end
    -- Alive waiters come back within min(wait, recheck); the deadline is only a safety net for dead ones.
    local keep = math.min(waitMs, recheck) + margin
    redis.call('ZADD', timeouts, now + keep, owner)
    -- Queue and timeouts vanish together once the last waiter is surely gone.
    if redis.call('PTTL', queue) < keep then
        redis.call('PEXPIRE', queue, keep)
        redis.call('PEXPIRE', timeouts, keep)
    end
end
local ttl = redis.call('PTTL', lock)
if ttl >= 0 and ttl < recheck then
    return {0, ttl, 0}
end
return {0, recheck, 0}
