-- Acquire or re-enter a reentrant lock, or report how long it stays busy. Safe to run twice (a
-- client re-sends a command whose reply it lost): the hold count is written, never incremented, and
-- a grant remembers the request that made it.
-- KEYS[1] lock hash (owner id -> hold count; '~token' -> fencing token; '~req' -> request that granted
--         it; '~s' -> the client that found it busy and waits, '*' once callers of two clients did; '~w' ->
--         the first client that found it busy and waits, whom a release grants or reserves it for; '~wr' ->
--         that client's waiting request, "<owner> <grant id> <lease ms> <tokens> <deadline, server ms>",
--         which a release grants the lock to directly (release.lua); '~res' -> the client a release
--         reserved it for)
-- KEYS[2] fencing counter <lock>:fence
-- ARGV[1] owner id (<client id>:<thread or handle>)   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter in ms
-- ARGV[4] holds the owner has now (0 for a new hold)   ARGV[5] grant id: the hold's grant when held, else this request's id
-- ARGV[6] fencing tokens a new grant reserves (its own and those its client hands on locally without a round trip;
--         more than 1: the client hands locks on locally)
-- ARGV[7] ms the caller still waits (0: a single attempt, which marks nothing)
-- Returns {1, token, hold count} when granted (re-entry keeps the token), {0, remaining ms, fencing counter}
-- when busy: a grant a release makes to this request later has a larger token than that counter, which is
-- how the waiter tells a grant message made after this attempt ran from one older (as fair-acquire.lua).
-- A grant a release made to this request (its owner's field under its grant id) is taken up as a re-entry
-- from 0 holds.
-- (token.lua and client-of.lua, prepended at load time, define nextToken and clientOf.)
local lock, owner, lease, held, req = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[4]), ARGV[5]
local reserved = false
-- A free lock costs one look (EXISTS); only a taken one is read further.
if redis.call('EXISTS', lock) == 1 then
    local fields = redis.call('HMGET', lock, owner, '~req', '~res', '~token', '~s', '~w')
    if fields[1] then
        if fields[2] == req then
            -- re-entry of the owner's hold, or this very grant sent again
            redis.call('HSET', lock, owner, held + 1)
            redis.call('PEXPIRE', lock, lease)
            return {1, tonumber(fields[4]), held + 1}
        end
        -- a grant its owner never learnt of (the reply was lost and the request given up): replace it,
        -- rewriting its fields in place so that the marks of those who wait stay
    elseif fields[3] ~= clientOf(owner) then
        -- busy. A caller that will wait marks the lock as waited for, so that its last release wakes
        -- the waiters; a release nobody waited for publishes nothing (in Redis Cluster a PUBLISH goes to
        -- every node). The mark names the caller's client, or '*' once a second client waits, so that a
        -- holder that hands the lock on locally stops reserving more tokens (refill.lua) when any other
        -- client waits. The first waiting client is also recorded, whether or not it hands locks on
        -- locally itself, so that a release that hands locks on locally reserves the lock for it instead
        -- of letting its own callers take it straight back. One that does not wait must not hold others up.
        -- A new request of that client (not a re-entry) is recorded with it ('~wr', the client's latest
        -- such request), so that the release can grant the lock to it at once and carry the grant in its
        -- message; until its deadline (the caller's wait) and no longer: a waiter that died meanwhile costs
        -- at most what release.lua caps such a grant at.
        if tonumber(ARGV[7]) > 0 then
            local me, marked = clientOf(owner), fields[5]
            if marked ~= me and marked ~= '*' then
                redis.call('HSET', lock, '~s', marked and '*' or me)
            end
            if (fields[6] == me or redis.call('HSETNX', lock, '~w', me) == 1) and held == 0 then
                local time = redis.call('TIME')
                local deadline = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) + tonumber(ARGV[7])
                redis.call('HSET', lock, '~wr', owner .. ' ' .. req .. ' ' .. lease .. ' ' .. ARGV[6] .. ' ' .. digits(deadline))
            end
        end
        return {0, redis.call('PTTL', lock), tonumber(redis.call('GET', KEYS[2]) or '0')}
    else
        -- released and reserved for this client: take it (the hash is rewritten in place, never deleted
        -- and written again, which Redis Cluster refuses while the slot migrates), keeping who else waits
        reserved = true
    end
end
local token = nextToken(KEYS[2], ARGV[3], tonumber(ARGV[6]))
redis.call('HSET', lock, owner, '1', '~token', digits(token), '~req', req)
if reserved then
    redis.call('HDEL', lock, '~res')
    if redis.call('HGET', lock, '~w') == clientOf(owner) then
        redis.call('HDEL', lock, '~w', '~wr')
    end
end
redis.call('PEXPIRE', lock, lease)
return {1, token, 1}
