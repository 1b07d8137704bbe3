-- Acquire or re-enter a read hold: granted unless another owner holds the write lock or, for a new
-- read hold, a writer waits for the lock (writers first: readers whose holds overlap cannot keep a
-- writer out; readers inside still re-enter, and the write holder still takes read holds). Safe to run
-- twice, as acquire.lua: counts are written, a grant remembers its request.
-- KEYS[1] read/write lock hash   KEYS[2] fencing counter <lock>:fence   KEYS[3] waiting writers <lock>:writers
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter in ms
-- ARGV[4] read holds the owner has now   ARGV[5] grant id: the hold's grant when held, else this request's id
-- Returns {1, token, hold count} when granted (a new read hold gets a fresh token, re-entry keeps it),
-- {0, ms until the blocking lease (or the waiting writer's mark) ends, 0} when busy.
-- (token.lua and rw-settle.lua, prepended at load time, define nextToken, settle(lock, now),
-- waitingWriter(writers, owner, now) and now.)
local lock, owner, lease, held, req = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[4]), ARGV[5]
if redis.call('EXISTS', lock) == 1 and redis.call('HEXISTS', lock, 'mode') == 0 then
    return {0, redis.call('PTTL', lock), 0} -- a lock of another kind holds this name
end
local writerEnd = settle(lock, now)
if writerEnd > 0 and redis.call('HEXISTS', lock, 'w:' .. owner) == 0 then
    return {0, writerEnd - now, 0}
end
local count, token
if redis.call('HEXISTS', lock, 'r:' .. owner) == 1 and redis.call('HGET', lock, 'rq:' .. owner) == req then
    count = held + 1
    token = tonumber(redis.call('HGET', lock, 'rt:' .. owner))
    redis.call('HSET', lock, 'r:' .. owner, count)
else
    if writerEnd <= 0 then -- (the write holder reads without waiting for writers: downgrade)
        local writerWaits = waitingWriter(KEYS[3], owner, now)
        if writerWaits > 0 then
            return {0, writerWaits - now, 0}
        end
    end
    count, token = 1, nextToken(KEYS[2], ARGV[3])
    redis.call('HSET', lock, 'r:' .. owner, '1', 'rt:' .. owner, digits(token), 'rq:' .. owner, req)
end
redis.call('HSET', lock, 'rd:' .. owner, digits(now + lease))
settle(lock, now)
return {1, token, count}
