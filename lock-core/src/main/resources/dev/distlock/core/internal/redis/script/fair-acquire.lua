-- Acquire or re-enter a fair lock in arrival order; queue the caller when it must wait. Safe to run
-- twice, as acquire.lua: counts are written, a grant remembers its request, queueing checks first.
-- KEYS[1] lock hash (as acquire.lua)   KEYS[2] queue of waiting owners   KEYS[3] timeouts (owner -> deadline, server ms)
-- KEYS[4] fencing counter <lock>:fence   KEYS[5] waiters' requests (owner -> "<grant id> <lease ms>")
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter in ms
-- ARGV[4] holds the owner has now   ARGV[5] grant id: the hold's grant when held, else this request's id
-- ARGV[6] ms the caller still waits (0 = a single attempt, never queued)
-- ARGV[7] recheck ms: the longest a waiter sleeps between attempts
-- ARGV[8] margin ms: how late past its next attempt a waiter may be before it counts as gone
-- ARGV[9] channel prefix (a waiter's own channel is prefix .. owner)   ARGV[10] wake-up message
-- Returns {1, token, hold count} when granted (re-entry keeps the token), {0, ms to sleep at most, fencing
-- counter} when not: a grant a release makes to this waiter later has a larger token than that counter, which
-- is how the waiter tells a grant message made after this attempt ran from one older (see fair-queue.lua).
-- A grant a release made to a waiter under this request's grant id is taken up as a re-entry from 0 holds.
-- (token.lua and fair-queue.lua, prepended at load time, define nextToken, serverMs and liveHead.)
local lock, queue, timeouts, waiting = KEYS[1], KEYS[2], KEYS[3], KEYS[5]
local owner, lease, held, req = ARGV[1], ARGV[2], tonumber(ARGV[4]), ARGV[5]
local waitMs, recheck, margin = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])

local replaced = false
local fields = redis.call('HMGET', lock, owner, '~req', '~token', '~c')
if fields[1] then
    if fields[2] == req then
        redis.call('HSET', lock, owner, held + 1)
        redis.call('PEXPIRE', lock, lease)
        return {1, tonumber(fields[3]), held + 1}
    end
    -- A grant its owner never learnt of: it counts as free, and is overwritten below by this request's grant
    -- (same field) or the next waiter's (never deleted and made again, see grantNext). Not so a grant its
    -- client may pass down a line of its waiters ('~c'): another waiter of that client may hold it now.
    replaced = not fields[4]
end

-- A place an earlier wait of this owner left behind (its client passed it the lock in-process, or its
-- leave never landed) is not this wait's: this wait queues anew, at the back.
local mine = redis.call('HGET', waiting, owner)
if mine and string.sub(mine, 1, #req + 1) ~= req .. ' ' then
    redis.call('LREM', queue, 1, owner)
    redis.call('ZREM', timeouts, owner)
    redis.call('HDEL', waiting, owner)
end

local now = serverMs()
local head, dropped = liveHead(queue, timeouts, waiting, now)
local free = replaced or redis.call('EXISTS', lock) == 0
if free and (not head or head == owner) then
    if head then
        redis.call('LPOP', queue)
        redis.call('ZREM', timeouts, owner)
        redis.call('HDEL', waiting, owner)
    end
    local token = nextToken(KEYS[4], ARGV[3])
    redis.call('HSET', lock, owner, '1', '~token', digits(token), '~req', req)
    redis.call('PEXPIRE', lock, lease)
    return {1, token, 1}
end

if (dropped or replaced) and free and head then
    -- The head's turn came without a release (dead waiters dropped before it, or a stale grant deleted
    -- here): grant it the lock and tell it, or it would sleep for a whole recheck period.
    grantNext(lock, replaced and owner or nil, queue, timeouts, waiting, KEYS[4], ARGV[3], ARGV[9], ARGV[10], '', 0)
end
local queued = redis.call('ZSCORE', timeouts, owner)
if waitMs > 0 or queued then
    if not queued then
        redis.call('RPUSH', queue, owner)
    end
    -- Alive waiters come back within min(wait, recheck); the deadline is only a safety net for dead ones.
    local keep = math.min(waitMs, recheck) + margin
    redis.call('ZADD', timeouts, now + keep, owner)
    redis.call('HSET', waiting, owner, req .. ' ' .. lease)
    -- Queue, timeouts and requests vanish together once the last waiter is surely gone.
    if redis.call('PTTL', queue) < keep then
        redis.call('PEXPIRE', queue, keep)
        redis.call('PEXPIRE', timeouts, keep)
    end
    if redis.call('PTTL', waiting) < keep then
        redis.call('PEXPIRE', waiting, keep)
    end
end
local ttl = redis.call('PTTL', lock)
local fence = tonumber(redis.call('GET', KEYS[4]) or '0')
if ttl >= 0 and ttl < recheck then
    return {0, ttl, fence}
end
return {0, recheck, fence}
