-- Release one hold of a reentrant lock; the last release deletes it and wakes waiters.
-- KEYS[1] lock hash   KEYS[2] wake-up channel
-- ARGV[1] owner id    ARGV[2] wake-up message
-- Returns 1 released, 0 still held (hold count decremented), -1 not held by this owner.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
    return -1
end
if redis.call('HINCRBY', KEYS[1], ARGV[1], -1) > 0 then
    return 0
end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', KEYS[2], ARGV[2])
return 1
