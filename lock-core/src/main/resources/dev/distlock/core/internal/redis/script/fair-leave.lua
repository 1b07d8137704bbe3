-- A waiter of a fair lock gives up (timeout, interrupt, error): remove it from the queue, give back a
-- grant a release made to it meanwhile, and when that or its leaving frees the lock for the next live
-- waiter, grant it to that waiter. Safe to run twice: the second run finds nothing of it.
-- KEYS[1] lock hash   KEYS[2] queue of waiting owners   KEYS[3] timeouts (owner -> deadline, server ms)
-- KEYS[4] waiters' requests   KEYS[5] fencing counter
-- ARGV[1] owner id    ARGV[2] channel prefix (a waiter's own channel is prefix .. owner)   ARGV[3] wake-up message
-- ARGV[4] the grant id to give back (the wait's own; empty for a re-entry, whose grant is the owner's hold)
-- ARGV[5] TTL of the fencing counter in ms   ARGV[6] the id the wait's attempts carried (its queue place's)
-- Returns 1 when the owner was queued or granted, 0 when it was neither.
-- Only this wait's place is left: an owner id (client and thread) waits again after giving up, and a leave
-- retried after a lost reply may land after that newer wait queued, which keeps its place.
-- (token.lua and fair-queue.lua, prepended at load time, define nextToken and grantNext.)
local lock, queue, timeouts, waiting, owner = KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1]
local place = redis.call('HGET', waiting, owner)
local wasHead, left = false, 0
if not place or string.sub(place, 1, #ARGV[6] + 1) == ARGV[6] .. ' ' then
    wasHead = redis.call('LINDEX', queue, 0) == owner
    redis.call('LREM', queue, 0, owner)
    redis.call('HDEL', waiting, owner)
    left = redis.call('ZREM', timeouts, owner)
end
local granted = redis.call('HEXISTS', lock, owner) == 1 and redis.call('HGET', lock, '~req') == ARGV[4]
if granted then
    left = 1 -- granted to it by a release while it was giving up: passed on below
end
if granted or (wasHead and redis.call('EXISTS', lock) == 0) then
    grantNext(lock, granted and owner or nil, queue, timeouts, waiting, KEYS[5], ARGV[5], ARGV[2], ARGV[3], '', 0)
end
return left
