-- A waiter of a fair semaphore gives up (timeout, interrupt, cancel, error): it leaves its place, gives
-- back permits granted to its request meanwhile (a try whose reply came too late), and those behind it
-- are woken, since the first of them may now be served. Safe to run twice: every run leaves a short-lived
-- note of its wait id, and a run that finds its own id there changes nothing (the same give-up sent again
-- after a lost reply must not take away the place of the owner's next wait).
-- KEYS[1] fair waiters <sem>:waiters   KEYS[2] the note of the owner's last give-up, <sem>:released:~left:<owner>
-- KEYS[3] semaphore hash
-- ARGV[1] owner id   ARGV[2] wake-up channel   ARGV[3] wake-up message
-- ARGV[4] wait id (the grant id the attempts of the wait carried)   ARGV[5] how long the note is kept, in ms
-- ARGV[6] grant id to give back if the request was granted ('' for none)
-- Returns 1 when the owner's place or grant was taken away, else 0.
-- (sem-settle.lua, prepended at load time, defines settle and sets now to the server time in ms.)
if redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5], 'GET') == ARGV[4] then
    return 0
end
local owner, sem = ARGV[1], KEYS[3]
local left = redis.call('HDEL', KEYS[1], 'a:' .. owner, 'e:' .. owner)
if ARGV[6] ~= '' and redis.call('HGET', sem, 'q:' .. owner) == ARGV[6] then
    redis.call('HDEL', sem, 'p:' .. owner, 't:' .. owner, 'd:' .. owner, 'q:' .. owner)
    settle(sem, now)
    left = 1
end
if left > 0 then
    redis.call('PUBLISH', ARGV[2], ARGV[3])
    return 1
end
return 0
