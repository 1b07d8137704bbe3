-- A caller of a reentrant lock that waited for it gives up (timeout, interrupt, cancel, error): it no
-- longer counts as its client waiting ('~w'), and a reservation for its client that nobody else of
-- that client takes is handed back at once (others are woken) instead of expiring by itself. Another
-- thread of the same client that still waits records itself again at its next attempt. The mark that
-- somebody waits ('~s') stays: others may still wait, and at worst a release wakes nobody.
-- KEYS[1] lock hash
-- ARGV[1] owner id   ARGV[2] wake-up channel   ARGV[3] wake-up message
-- Returns 1 when the client was recorded as waiting, 2 when a reservation for it was handed back, else 0.
-- (client-of.lua, prepended at load time, defines clientOf.)
local lock, me = KEYS[1], clientOf(ARGV[1])
if redis.call('HGET', lock, '~w') == me then
    redis.call('HDEL', lock, '~w')
    return 1
end
if redis.call('HGET', lock, '~res') == me then
    redis.call('DEL', lock)
    redis.call('PUBLISH', ARGV[2], ARGV[3])
    return 2
end
return 0
