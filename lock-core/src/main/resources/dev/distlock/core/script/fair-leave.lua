-- A waiter of a fair lock gives up (timeout, interrupt, error): remove it from the queue, give back a
-- grant a release made to it meanwhile, and when that or its leaving frees the lock for the next live
-- waiter, grant it to that waiter. Safe to run twice: the second run finds nothing of it.
-- KEYS[1] lock hash   KEYS[2] queue of waiting owners   KEYS[3] timeouts (owner -> deadline, server ms)
-- KEYS[4] waiters' requests   KEYS[5] fencing counter
-- ARGV[1] owner id    ARGV[2] channel prefix (a waiter's own channel is prefix .. owner)   ARGV[3] wake-up message
-- ARGV[4] the waiter's grant id   ARGV[5] TTL of the fencing counter in ms
-- Returns 1 when the owner was queued or granted, 0 when it was neither.
-- (token.lua and fair-queue.lua, prepended at load time, define nextToken and grantNext.)
local lock, queue, timeouts, waiting, owner = KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1]
local wasHead = redis.call('LINDEX', queue, 0) == owner
redis.call('LREM', queue, 0, owner)
redis.call('HDEL', waiting, owner)
local left = redis.call('ZREM', timeouts, owner)
local granted = redis.call('HEXISTS', lock, owner) == 1 and redis.call('HGET', lock, '~req') == ARGV[4]
if granted then
    left = 1 -- granted to it by a release while it was giving up: passed on below
end
if granted or (wasHead and redis.call('EXISTS', lock) == 0) then
    grantNext(lock, granted and owner or nil, queue, timeouts, waiting, KEYS[5], ARGV[5], ARGV[2], ARGV[3], '', 0)
end
return left
