-- A waiter of a fair lock gives up (timeout, interrupt, error): remove it from queue and timeouts,
-- and when it was first in line for a free lock, wake the next live waiter, whose turn it now is.
-- KEYS[1] lock hash   KEYS[2] queue of waiting owners   KEYS[3] timeouts (owner -> deadline, server ms)
-- ARGV[1] owner id    ARGV[2] channel prefix (a waiter's own channel is prefix .. owner)   ARGV[3] wake-up message
-- Returns 1 when the owner was queued, 0 when it was not.
-- (fair-queue.lua, prepended at load time, defines wakeNext.)
local lock, queue, timeouts, owner = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local wasHead = redis.call('LINDEX', queue, 0) == owner
redis.call('LREM', queue, 0, owner)
local removed = redis.call('ZREM', timeouts, owner)
if wasHead and redis.call('EXISTS', lock) == 0 then
    wakeNext(queue, timeouts, ARGV[2], ARGV[3])
end
return removed
