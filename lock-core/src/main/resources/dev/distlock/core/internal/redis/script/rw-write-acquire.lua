-- Acquire or re-enter the write hold: granted when nobody holds the lock (or owner already writes).
-- A caller that will wait marks itself in <lock>:writers as a writer waiting, which keeps new readers
-- out (rw-read-acquire.lua) until it gets in, gives up (rw-leave.lua), or stops renewing the mark: the
-- mark lasts ARGV[7] ms at most (or the caller's wait, if shorter), and a busy reply tells the caller
-- to look again within half that, which renews it. So a writer that vanished while it waited holds
-- readers back ARGV[7] ms at most.
-- Safe to run twice, as acquire.lua: counts are written, a grant remembers its request; a mark written
-- twice is the same mark.
-- KEYS[1] read/write lock hash   KEYS[2] fencing counter <lock>:fence   KEYS[3] waiting writers <lock>:writers
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter in ms
-- ARGV[4] write holds the owner has now   ARGV[5] grant id: the hold's grant when held, else this request's id
-- ARGV[6] ms the caller still waits (0: a single attempt, which marks nothing)
-- ARGV[7] how long a mark holds readers back unless renewed, in ms
-- Returns {1, token, hold count} when granted (re-entry keeps the token), {0, ms until the caller looks
-- again at the latest, 0} when busy, {-1, 0, 0} when owner holds only a read hold (upgrade: would wait
-- for itself).
-- (token.lua and rw-settle.lua, prepended at load time, define nextToken and settle(lock, now), and now.)
local lock, owner, lease, held, req = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4]), ARGV[5]
local writers, waitMs, markMs = KEYS[3], tonumber(ARGV[6]), tonumber(ARGV[7])
-- busy: a caller that waits marks itself (or renews its mark) and is told to look again before it ends
local function busy(pttl)
    if waitMs <= 0 then
        return {0, pttl, 0}
    end
    local mark = math.min(waitMs, markMs)
    redis.call('HSET', writers, owner, digits(now + mark))
    if redis.call('PTTL', writers) < mark then
        redis.call('PEXPIRE', writers, mark)
    end
    local again = math.max(1, math.floor(mark / 2))
    if pttl >= 0 and pttl < again then
        again = pttl
    end
    return {0, again, 0}
end
if redis.call('EXISTS', lock) == 1 and redis.call('HEXISTS', lock, 'mode') == 0 then
    return {0, redis.call('PTTL', lock), 0} -- a lock of another kind holds this name
end
local writerEnd = settle(lock, now)
if writerEnd > 0 then
    if redis.call('HEXISTS', lock, 'w:' .. owner) == 0 then
        return busy(redis.call('PTTL', lock))
    end
    if redis.call('HGET', lock, 'wq:' .. owner) == req then
        redis.call('HSET', lock, 'w:' .. owner, held + 1, 'wd:' .. owner, now + lease)
        settle(lock, now)
        return {1, tonumber(redis.call('HGET', lock, 'wt:' .. owner)), held + 1}
    end
    -- a write grant its owner never learnt of (the reply was lost and the request given up): replace it
    redis.call('HDEL', lock, 'w:' .. owner, 'wt:' .. owner, 'wd:' .. owner, 'wq:' .. owner)
    writerEnd = settle(lock, now)
end
if writerEnd == 0 then
    if redis.call('HEXISTS', lock, 'r:' .. owner) == 1 then
        return {-1, 0, 0}
    end
    return busy(redis.call('PTTL', lock))
end
local token = nextToken(KEYS[2], ARGV[3])
redis.call('HDEL', writers, owner)
redis.call('HSET', lock, 'w:' .. owner, '1', 'wt:' .. owner, digits(token), 'wd:' .. owner, digits(now + lease),
    'wq:' .. owner, req)
settle(lock, now)
return {1, token, 1}
