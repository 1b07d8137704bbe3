-- Release one hold of a fair lock; the last release grants the lock to the next live waiter at once.
-- Safe to run twice, as release.lua: a second last release finds the note and grants nothing. A last
-- release that granted the lock to a waiter of its own client notes that grant too, and the same call
-- run again (ARGV[11]: sent again after a lost reply, by Lettuce or the client's retry) answers with
-- that grant again while it stands unchanged: the client never learnt of it and must still hand it to
-- its waiter (else the waiter would sit out its recheck interval, up to 1 s, with the lock granted to
-- it). Another call for the same grant (a second give-back) gets "released" only: the client
-- had that first answer, and a grant is never handed twice.
-- KEYS[1] lock hash   KEYS[2] queue of waiting owners   KEYS[3] timeouts (owner -> deadline, server ms)
-- KEYS[4] the note of a last release, <lock>:released:<owner>   KEYS[5] waiters' requests   KEYS[6] fencing counter
-- ARGV[1] owner id   ARGV[2] grant id of the hold   ARGV[3] holds the owner has before this release
-- ARGV[4] channel prefix (a waiter's own channel is prefix .. owner)   ARGV[5] wake-up message
-- ARGV[6] how long the note of a last release is kept, in ms   ARGV[7] TTL of the fencing counter in ms
-- ARGV[8] owner-id prefix of the releasing client's waiters, which it hands a grant itself ('' for none)
-- ARGV[9] how many of its waiters queued right behind that one the client may pass the grant on to
-- ARGV[10] the waiters the client passed this grant down to or over, "owner grant-id ..." ('' for none)
-- ARGV[11] id of this release call, the same whenever this very command is sent again
-- Returns {1} released, {0} still held, {-1} not held by this grant; {1, owner, token, grant id, lease ms,
-- promised...} when released and granted to a waiter of the releasing client, which that client must
-- now hand it (see grantNext); {2, owner, ...} the same for a grant an earlier sending of this call made
-- (its lease runs from that sending, not this one's).
-- (token.lua and fair-queue.lua, prepended at load time, define nextToken, grantNext and dropServed.)
local lock, owner, req, held = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3])
local note = KEYS[4]
local fields = redis.call('HMGET', lock, owner, '~req')
if not fields[1] or fields[2] ~= req then
    local noted = redis.call('GET', note)
    if noted == req then
        return {1}
    end
    local call = req .. ' ' .. ARGV[11] .. ' '
    if noted and string.sub(noted, 1, #call) == call then
        -- "<grant id> <call id> <waiter> <token> <waiter's grant id> <lease ms> <promised...>": this very
        -- call granted the lock to a waiter of this client. Answer the same while that grant stands (the
        -- waiter's field, under the same grant id); once it was given back or expired there is nothing to
        -- hand.
        local handed = {}
        for word in string.gmatch(string.sub(noted, #call + 1), '%S+') do
            handed[#handed + 1] = word
        end
        local grant = redis.call('HMGET', lock, handed[1], '~req')
        if grant[1] and grant[2] == handed[3] then
            handed[2], handed[4] = tonumber(handed[2]), tonumber(handed[4])
            table.insert(handed, 1, 2)
            return handed
        end
        return {1}
    end
    if noted and string.sub(noted, 1, #req + 1) == req .. ' ' then
        return {1}
    end
    return {-1}
end
if held > 1 then
    redis.call('HSET', lock, owner, held - 1)
    return {0}
end
dropServed(KEYS[2], KEYS[3], KEYS[5], ARGV[10])
local handed = grantNext(lock, owner, KEYS[2], KEYS[3], KEYS[5], KEYS[6], ARGV[7], ARGV[4], ARGV[5], ARGV[8], tonumber(ARGV[9]))
if handed then
    redis.call('SET', note, req .. ' ' .. ARGV[11] .. ' ' .. handed[1] .. ' ' .. digits(handed[2]) .. ' '
        .. table.concat(handed, ' ', 3), 'PX', ARGV[6])
    table.insert(handed, 1, 1)
    return handed
end
redis.call('SET', note, req, 'PX', ARGV[6])
return {1}
