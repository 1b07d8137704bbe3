-- Release one hold of a fair lock; the last release deletes it and wakes only the next live waiter.
-- KEYS[1] lock hash   KEYS[2] queue of waiting owners   KEYS[3] timeouts (owner -> deadline, server ms)
-- ARGV[1] owner id    ARGV[2] channel prefix (a waiter's own channel is prefix .. owner)   ARGV[3] wake-up message
-- Returns 1 released, 0 still held (hold count decremented), -1 not held by this owner.
local lock, queue, timeouts = KEYS[1], KEYS[2], KEYS[3]
if redis.call('HEXISTS', lock, ARGV[1]) == 0 then
    return -1
end
if redis.call('HINCRBY', lock, ARGV[1], -1) > 0 then
    return 0
end
redis.call('DEL', lock)
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local head = redis.call('LINDEX', queue, 0)
while head do
    local deadline = redis.call('ZSCORE', timeouts, head)
    if deadline and tonumber(deadline) > now then
        redis.call('PUBLISH', ARGV[2] .. head, ARGV[3])
        break
    end
    redis.call('LPOP', queue)
    redis.call('ZREM', timeouts, head)
    head = redis.call('LINDEX', queue, 0)
end
return 1
