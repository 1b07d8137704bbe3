-- A writer of a read/write lock that waited for it gives up (timeout, interrupt, cancel, error): its
-- mark no longer keeps new readers out, and those it kept out are woken. Safe to run twice: a mark
-- already gone is left alone.
-- KEYS[1] waiting writers <lock>:writers
-- ARGV[1] owner id   ARGV[2] wake-up channel   ARGV[3] wake-up message
-- Returns 1 when the owner's mark was taken away, else 0.
if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then
    redis.call('PUBLISH', ARGV[2], ARGV[3])
    return 1
end
return 0
