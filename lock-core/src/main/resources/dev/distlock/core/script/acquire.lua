-- Acquire or re-enter a reentrant lock, or report how long it stays busy. Safe to run twice (a
-- client re-sends a command whose reply it lost): the hold count is written, never incremented, and
-- a grant remembers the request that made it.
-- KEYS[1] lock hash (owner id -> hold count; '~token' -> fencing token; '~req' -> request that granted
--         it; '~w' -> a client that found it busy; '~res' -> the client a release reserved it for)
-- KEYS[2] fencing counter <lock>:fence
-- ARGV[1] owner id (<client id>:<thread or handle>)   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter in ms
-- ARGV[4] holds the owner has now (0 for a new hold)   ARGV[5] grant id: the hold's grant when held, else this request's id
-- ARGV[6] fencing tokens a new grant reserves (its own and those its client hands on locally without a round trip)
-- ARGV[7] ms the caller still waits (0: a single attempt)
-- Returns {1, token, hold count} when granted (re-entry keeps the token), {0, remaining ms, 0} when busy.
-- (token.lua and client-of.lua, prepended at load time, define nextToken and clientOf.)
local lock, owner, lease, held, req = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[4]), ARGV[5]
local reserved = false
-- A free lock costs one look (EXISTS); only a taken one is read further.
if redis.call('EXISTS', lock) == 1 then
    local fields = redis.call('HMGET', lock, owner, '~req', '~res', '~token')
    if fields[1] then
        if fields[2] == req then
            -- re-entry of the owner's hold, or this very grant sent again
            redis.call('HSET', lock, owner, held + 1)
            redis.call('PEXPIRE', lock, lease)
            return {1, tonumber(fields[4]), held + 1}
        end
        -- a grant its owner never learnt of (the reply was lost and the request given up): replace it
        redis.call('DEL', lock)
    elseif fields[3] ~= clientOf(owner) then
        -- busy: a caller that will wait records its client, so that the holder's release reserves the
        -- lock for that client (one that does not wait must not hold others up)
        if tonumber(ARGV[7]) > 0 then
            redis.call('HSETNX', lock, '~w', clientOf(owner))
        end
        return {0, redis.call('PTTL', lock), 0}
    else
        -- released and reserved for this client: take it (the hash is rewritten in place, never deleted
        -- and written again, which Redis Cluster refuses while the slot migrates), keeping who else waits
        reserved = true
    end
end
local token = nextToken(KEYS[2], ARGV[3], tonumber(ARGV[6]))
redis.call('HSET', lock, owner, 1, '~token', token, '~req', req)
if reserved then
    redis.call('HDEL', lock, '~res')
    if redis.call('HGET', lock, '~w') == clientOf(owner) then
        redis.call('HDEL', lock, '~w')
    end
end
redis.call('PEXPIRE', lock, lease)
return {1, token, 1}
