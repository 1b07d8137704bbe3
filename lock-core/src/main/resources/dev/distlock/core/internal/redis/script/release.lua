-- Release one hold of a reentrant lock; the last release deletes it and wakes waiters. Safe to run
-- twice: the count is written, and the last release leaves a short-lived note <lock>:released:<owner>
-- so that a repeat still answers "released" instead of "not held".
-- KEYS[1] lock hash   KEYS[2] the note of a last release, <lock>:released:<owner>
-- ARGV[1] owner id   ARGV[2] grant id of the hold   ARGV[3] holds the owner has before this release
-- ARGV[4] wake-up channel   ARGV[5] wake-up message   ARGV[6] how long the note is kept, in ms
-- ARGV[7] ms the lock must stay taken after a last release (hold-at-least; 0: free it now). The lock
--         then keeps its fencing token but no owner, so nobody takes or re-enters it until it expires;
--         a fixed lease ending sooner still wins. Nobody is woken: waiters retry when its time is up.
-- ARGV[8] ms a last release reserves the lock for another client that found it busy ('~w'): only that
--         client may take it meanwhile, so that clients take turns instead of the releasing one taking
--         it straight back. Nobody waiting elsewhere, or 0: it is free at once.
-- ARGV[9] '1' when the hold's lease was renewed by a watchdog: it has no end the caller chose, so the
--         lock stays taken the whole ARGV[7] even past the lease it has left (a job with a 5 min
--         hold-at-least and a 30 s watchdog lease keeps others out for 5 min).
-- A last release that frees the lock or reserves it publishes ARGV[5] on ARGV[4] only when somebody
-- waited for it ('~s', or '~w'); an uncontended release publishes nothing.
-- Returns 1 released, 0 still held (count now ARGV[3] - 1), -1 not held by this grant.
-- (client-of.lua, prepended at load time, defines clientOf.)
local lock, owner, req, held = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3])
local note = KEYS[2]
local fields = redis.call('HMGET', lock, owner, '~req', '~w', '~s')
if not fields[1] or fields[2] ~= req then
    if redis.call('GET', note) == req then
        return 1
    end
    return -1
end
if held > 1 then
    redis.call('HSET', lock, owner, held - 1)
    return 0
end
redis.call('SET', note, req, 'PX', ARGV[6])
local keep = tonumber(ARGV[7])
if keep > 0 then
    redis.call('HDEL', lock, owner)
    if ARGV[9] == '1' or keep < redis.call('PTTL', lock) then
        redis.call('PEXPIRE', lock, keep)
    end
    return 1
end
local waiting = fields[3]
if waiting and waiting ~= clientOf(owner) and tonumber(ARGV[8]) > 0 then
    -- rewritten in place (Redis Cluster refuses a key deleted and written again while its slot migrates)
    redis.call('HSET', lock, '~res', waiting)
    redis.call('HDEL', lock, owner, '~token', '~req', '~w')
    redis.call('PEXPIRE', lock, ARGV[8])
else
    redis.call('DEL', lock)
end
if fields[4] or waiting then
    redis.call('PUBLISH', ARGV[4], ARGV[5])
end
return 1
