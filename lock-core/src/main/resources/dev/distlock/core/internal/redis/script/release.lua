-- Release one hold of a reentrant lock; the last release deletes it and wakes waiters. Safe to run
-- twice: the count is written, and the last release leaves a short-lived note <lock>:released:<owner>
-- so that a repeat still answers "released" instead of "not held".
-- KEYS[1] lock hash   KEYS[2] the note of a last release, <lock>:released:<owner>   KEYS[3] fencing counter
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
-- ARGV[10] TTL of the fencing counter in ms   ARGV[11] the longest TTL a grant carried in a message gets
--         (what a waiter that died meanwhile can cost the others), 0: never grant that way
-- A last release, when another client waits and recorded its waiting request ('~wr', see acquire.lua)
-- whose deadline has not passed, grants the lock to that request at once: its owner's field under its
-- grant id, a new fencing token (the block it asked for), and a TTL of its lease, cut to what is left of
-- its wait and to ARGV[11]. It publishes "~g <token> <grant id>@<owner> <TTL ms> <message>" on ARGV[4] (the
-- channel all waiters share, and grant ids are only unique within their client), so that
-- the waiter holds the lock on receipt, without another script (see WakeupHub); every other subscriber
-- takes it as a plain wake-up. A waiter that misses the message finds the grant with its next attempt
-- (a re-entry from 0 holds), and one that gave up gives it back with its leave (leave.lua). Granted once:
-- the same release run again finds its note.
-- Otherwise a last release that frees the lock or reserves it publishes ARGV[5] on ARGV[4] only when
-- somebody waited for it ('~s', or '~w'); an uncontended release publishes nothing.
-- Returns 1 released, 0 still held (count now ARGV[3] - 1), -1 not held by this grant.
-- (token.lua and client-of.lua, prepended at load time, define nextToken, digits and clientOf.)
local lock, owner, req, held = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3])
local note = KEYS[2]
local fields = redis.call('HMGET', lock, owner, '~req', '~w', '~s', '~wr')
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
local cap = tonumber(ARGV[11]) or 0
if waiting and fields[5] and waiting ~= clientOf(owner) and cap > 0 then
    local w = {}
    for word in string.gmatch(fields[5], '%S+') do
        w[#w + 1] = word
    end
    local time = redis.call('TIME')
    local ttl = math.min(tonumber(w[3]), tonumber(w[5]) - (tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)), cap)
    if clientOf(w[1]) == waiting and ttl > 0 then
        local token = nextToken(KEYS[3], ARGV[10], tonumber(w[4]))
        -- rewritten in place, as below
        redis.call('HDEL', lock, owner, '~res', '~w', '~wr')
        redis.call('HSET', lock, w[1], '1', '~token', digits(token), '~req', w[2])
        redis.call('PEXPIRE', lock, ttl)
        redis.call('PUBLISH', ARGV[4], '~g ' .. digits(token) .. ' ' .. w[2] .. '@' .. w[1] .. ' ' .. digits(ttl) .. ' ' .. ARGV[5])
        return 1
    end
end
if waiting and waiting ~= clientOf(owner) and tonumber(ARGV[8]) > 0 then
    -- rewritten in place (Redis Cluster refuses a key deleted and written again while its slot migrates)
    redis.call('HSET', lock, '~res', waiting)
    redis.call('HDEL', lock, owner, '~token', '~req', '~w', '~wr')
    redis.call('PEXPIRE', lock, ARGV[8])
else
    redis.call('DEL', lock)
end
if fields[4] or waiting then
    redis.call('PUBLISH', ARGV[4], ARGV[5])
end
return 1
