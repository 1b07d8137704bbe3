-- Take permits of a semaphore for one new holder: granted when enough permits are free and, for a fair
-- semaphore, nobody who asked earlier still waits. Each holder has its own lease, so one that died gives
-- its permits back when its lease ends. A caller that will wait is recorded as waiting (a release then
-- wakes it); a fair one keeps its place in <sem>:waiters while it looks again at least every half of
-- ARGV[9] ms, so a waiter that vanished holds the others back that long at most.
-- Safe to run twice: a grant remembers its request, and the same request sent again gets the same grant.
-- KEYS[1] semaphore hash   KEYS[2] fencing counter <sem>:fence   KEYS[3] its number of permits <sem>:permits
-- KEYS[4] fair waiters <sem>:waiters
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter (and of KEYS[3]) in ms
-- ARGV[4] grant id (this request's id)   ARGV[5] ms the caller still waits (0: a single attempt, which marks nothing)
-- ARGV[6] the semaphore's number of permits   ARGV[7] permits wanted   ARGV[8] '1' for a fair semaphore
-- ARGV[9] how long a fair waiter's place holds unless it looks again, in ms
-- ARGV[10] wake-up channel   ARGV[11] wake-up message (a fair grant that leaves permits free wakes the next)
-- Returns {1, token, 1} when granted, {0, ms until the caller looks again at the latest, 0} when it must
-- wait, {-2, the number of permits the semaphore has, 0} when ARGV[6] differs from it.
-- (token.lua and sem-settle.lua, prepended at load time, define nextToken, settle, head and now.)
local sem, owner, lease, req = KEYS[1], ARGV[1], tonumber(ARGV[2]), ARGV[4]
local waitMs, total, want, fair, markMs = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8] == '1',
    tonumber(ARGV[9])
local declared = redis.call('GET', KEYS[3])
if declared and declared ~= ARGV[6] then
    return {-2, tonumber(declared), 0}
end
if redis.call('EXISTS', sem) == 1 and redis.call('HEXISTS', sem, '~n') == 0 then
    return {0, redis.call('PTTL', sem), 0} -- a lock of another kind holds this name
end
local used, first = settle(sem, now)
local grant = redis.call('HMGET', sem, 'q:' .. owner, 't:' .. owner, 'p:' .. owner)
if grant[1] == req then
    -- this very grant sent again (its reply was lost)
    return {1, tonumber(grant[2]), 1}
end
if grant[1] then
    -- a grant its owner never learnt of (the reply was lost and the request given up): replace it
    redis.call('HDEL', sem, 'p:' .. owner, 't:' .. owner, 'd:' .. owner, 'q:' .. owner)
    used = used - tonumber(grant[3])
end
local waiters = KEYS[4]
local ahead = false
if fair then
    local next = head(waiters, now)
    ahead = next ~= nil and next ~= owner
end
if ahead or used + want > total then
    local again = first > 0 and first - now or markMs
    if waitMs > 0 then
        if fair then
            local mark = math.min(waitMs, markMs)
            redis.call('HSETNX', waiters, 'a:' .. owner, digits(tonumber(clock[1]) * 1000000 + tonumber(clock[2])))
            redis.call('HSET', waiters, 'e:' .. owner, digits(now + mark))
            if redis.call('PTTL', waiters) < mark then
                redis.call('PEXPIRE', waiters, mark)
            end
            again = math.min(again, math.max(1, math.floor(mark / 2)))
        elseif first > 0 then
            redis.call('HSET', sem, '~w', '1')
        end
    end
    return {0, math.max(1, again), 0}
end
local token = nextToken(KEYS[2], ARGV[3])
redis.call('HSET', sem, '~n', ARGV[6], 'p:' .. owner, ARGV[7], 't:' .. owner, digits(token),
    'd:' .. owner, digits(now + lease), 'q:' .. owner, req)
if redis.call('PTTL', sem) < lease then
    redis.call('PEXPIRE', sem, lease)
end
redis.call('SET', KEYS[3], ARGV[6], 'PX', ARGV[3])
if fair and redis.call('HDEL', waiters, 'a:' .. owner, 'e:' .. owner) > 0 and used + want < total
        and redis.call('EXISTS', waiters) == 1 then
    redis.call('PUBLISH', ARGV[10], ARGV[11])
end
return {1, token, 1}
