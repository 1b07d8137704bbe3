-- Acquire or re-enter a reentrant lock, or report how long it stays busy. Safe to run twice (a
-- client re-sends a command whose reply it lost): the hold count is written, never incremented, and
-- a grant remembers the request that made it.
-- KEYS[1] lock hash (owner id -> hold count; '~token' -> fencing token; '~req' -> request that granted it)
-- KEYS[2] fencing counter <lock>:fence
-- ARGV[1] owner id   ARGV[2] lease in ms   ARGV[3] TTL of the fencing counter in ms
-- ARGV[4] holds the owner has now (0 for a new hold)   ARGV[5] grant id: the hold's grant when held, else this request's id
-- Returns {1, token, hold count} when granted (re-entry keeps the token), {0, remaining ms, 0} when busy.
-- (token.lua, prepended at load time, defines nextToken.)
local lock, owner, lease, held, req = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[4]), ARGV[5]
if redis.call('HEXISTS', lock, owner) == 1 then
    if redis.call('HGET', lock, '~req') == req then
        -- re-entry of the owner's hold, or this very grant sent again
        redis.call('HSET', lock, owner, held + 1)
        redis.call('PEXPIRE', lock, lease)
        return {1, tonumber(redis.call('HGET', lock, '~token')), held + 1}
    end
    -- a grant its owner never learnt of (the reply was lost and the request given up): replace it
    redis.call('DEL', lock)
elseif redis.call('EXISTS', lock) == 1 then
    return {0, redis.call('PTTL', lock), 0}
end
local token = nextToken(KEYS[2], ARGV[3])
redis.call('HSET', lock, owner, 1, '~token', string.format('%.0f', token), '~req', req)
redis.call('PEXPIRE', lock, lease)
return {1, token, 1}
