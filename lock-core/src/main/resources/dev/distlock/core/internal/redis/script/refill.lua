-- Lock cohorting past one block of fencing tokens: a client that keeps handing a reentrant grant on
-- between its own threads reserves the next block while no other client waits for the lock, instead of
-- releasing it in Redis and taking it again. Running it twice only reserves a block nobody uses (tokens
-- may skip values; they never repeat or go back).
-- KEYS[1] lock hash   KEYS[2] fencing counter <lock>:fence
-- ARGV[1] owner id the grant has in Redis   ARGV[2] its grant id   ARGV[3] tokens to reserve
-- ARGV[4] TTL of the fencing counter in ms
-- Returns {first, last} token of the block, or {0, 0} when another client waits ('~w' names it, or '~s'
-- does when a waiter of the holder's own client took '~w' first) or the grant is no longer held (the
-- lease ran out, or it was released or forced free).
-- (token.lua and client-of.lua, prepended at load time, define nextToken and clientOf.)
local lock, owner = KEYS[1], ARGV[1]
local fields = redis.call('HMGET', lock, owner, '~req', '~w', '~s')
local me = clientOf(owner)
if not fields[1] or fields[2] ~= ARGV[2] or (fields[3] and fields[3] ~= me) or (fields[4] and fields[4] ~= me) then
    return {0, 0}
end
local block = tonumber(ARGV[3])
local first = nextToken(KEYS[2], ARGV[4], block)
return {first, first + block - 1}
