-- Delete a lock whoever holds it and wake waiters.
-- KEYS[1] lock hash   KEYS[2] wake-up channel
-- ARGV[1] wake-up message
-- Returns 1 when a lock was deleted, 0 when it was free.
if redis.call('DEL', KEYS[1]) == 1 then
    redis.call('PUBLISH', KEYS[2], ARGV[1])
    return 1
end
return 0
