-- A caller of a reentrant lock that waited for it gives up (timeout, interrupt, cancel, error): it no
-- longer counts as its client waiting ('~w'), and a reservation for its client that nobody else of
-- that client takes is handed back at once (others are woken) instead of expiring by itself. Another
-- thread of the same client that still waits records itself again at its next attempt. The mark that
-- somebody waits ('~s') stays: others may still wait, and at worst a release wakes nobody.
-- A grant a release made to this very wait (release.lua), which it never took up, is given back the same
-- way. Only the record of this wait is taken back ('~wr' naming its owner and wait id, or none): a later
-- caller of the same client that waits now keeps its own.
-- Safe to run twice: every run leaves a short-lived note of its wait id, and a run that finds its own id
-- there changes nothing. Without it, the same give-up sent again after a lost reply could take back the
-- record or the reservation of a caller of the same client that started waiting in between.
-- KEYS[1] lock hash   KEYS[2] the note of the owner's last give-up, <lock>:released:~left:<owner>
-- ARGV[1] owner id   ARGV[2] wake-up channel   ARGV[3] wake-up message
-- ARGV[4] wait id (the grant id the attempts of the wait carried)   ARGV[5] how long the note is kept, in ms
-- ARGV[6] the same, for a grant made to the wait to be given back; '' for a re-entry (the hold stays)
-- Returns 1 when the client was recorded as waiting, 2 when a reservation or a grant for it was handed back,
-- else 0.
-- (client-of.lua, prepended at load time, defines clientOf.)
local lock, me = KEYS[1], clientOf(ARGV[1])
if redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5], 'GET') == ARGV[4] then
    return 0
end
local fields = redis.call('HMGET', lock, '~w', '~wr', '~res', ARGV[1], '~req')
if fields[4] and ARGV[6] ~= '' and fields[5] == ARGV[6] then
    redis.call('DEL', lock)
    redis.call('PUBLISH', ARGV[2], ARGV[3])
    return 2
end
if fields[1] == me then
    local mine = ARGV[1] .. ' ' .. ARGV[4] .. ' '
    if not fields[2] or string.sub(fields[2], 1, #mine) == mine then
        redis.call('HDEL', lock, '~w', '~wr')
        return 1
    end
    return 0
end
if fields[3] == me then
    redis.call('DEL', lock)
    redis.call('PUBLISH', ARGV[2], ARGV[3])
    return 2
end
return 0
