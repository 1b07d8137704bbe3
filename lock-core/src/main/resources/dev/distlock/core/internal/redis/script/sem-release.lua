-- Give back the permits of one holder of a semaphore, and wake those who wait for permits.
-- Safe to run twice, as release.lua: a release leaves the note <sem>:released:<owner>.
-- KEYS[1] semaphore hash   KEYS[2] the note of the release, <sem>:released:<owner>   KEYS[3] fair waiters <sem>:waiters
-- ARGV[1] owner id   ARGV[2] grant id of the hold   ARGV[3] wake-up channel   ARGV[4] wake-up message
-- ARGV[5] how long the note is kept, in ms
-- Returns 1 released, -1 not held by this grant (or its lease is over).
-- (sem-settle.lua, prepended at load time, defines settle and sets now to the server time in ms.)
local sem, owner, req = KEYS[1], ARGV[1], ARGV[2]
local fields = redis.call('HMGET', sem, '~n', '~w')
if fields[1] then
    settle(sem, now)
end
if redis.call('HGET', sem, 'q:' .. owner) ~= req then
    if redis.call('GET', KEYS[2]) == req then
        return 1
    end
    return -1
end
redis.call('HDEL', sem, 'p:' .. owner, 't:' .. owner, 'd:' .. owner, 'q:' .. owner, '~w')
settle(sem, now)
redis.call('SET', KEYS[2], req, 'PX', ARGV[5])
if fields[2] or redis.call('EXISTS', KEYS[3]) == 1 then
    redis.call('PUBLISH', ARGV[3], ARGV[4])
end
return 1
