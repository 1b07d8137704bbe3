-- Delete a lock whoever holds it and wake waiters.
-- KEYS[1] lock hash
-- ARGV[1] wake-up channel   ARGV[2] wake-up message
-- Returns 1 when a lock was deleted, 0 when it was free.
if redis.call('DEL', KEYS[1]) == 1 then
    redis.call('PUBLISH', ARGV[1], ARGV[2])
    return 1
end
return 0
