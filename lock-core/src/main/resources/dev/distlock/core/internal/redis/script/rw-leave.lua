-- A writer of a read/write lock that waited for it gives up (timeout, interrupt, cancel, error): its
-- mark no longer keeps new readers out, and those it kept out are woken. Safe to run twice: every run
-- leaves a short-lived note of its wait id, and a run that finds its own id there changes nothing (the
-- same give-up sent again after a lost reply must not take away the mark of the owner's next wait).
-- KEYS[1] waiting writers <lock>:writers   KEYS[2] the note of the owner's last give-up,
--         <lock>:released:~left:w:<owner>
-- ARGV[1] owner id   ARGV[2] wake-up channel   ARGV[3] wake-up message
-- ARGV[4] wait id (the grant id the attempts of the wait carried)   ARGV[5] how long the note is kept, in ms
-- Returns 1 when the owner's mark was taken away, else 0.
if redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5], 'GET') == ARGV[4] then
    return 0
end
if redis.call('HDEL', KEYS[1], ARGV[1]) == 1 then
    redis.call('PUBLISH', ARGV[2], ARGV[3])
    return 1
end
return 0
