-- Release one hold of a fair lock; the last release grants the lock to the next live waiter at once.
-- Safe to run twice, as release.lua: a second last release finds the note and grants nothing.
-- KEYS[1] lock hash   KEYS[2] queue of waiting owners   KEYS[3] timeouts (owner -> deadline, server ms)
-- KEYS[4] the note of a last release, <lock>:released:<owner>   KEYS[5] waiters' requests   KEYS[6] fencing counter
-- ARGV[1] owner id   ARGV[2] grant id of the hold   ARGV[3] holds the owner has before this release
-- ARGV[4] channel prefix (a waiter's own channel is prefix .. owner)   ARGV[5] wake-up message
-- ARGV[6] how long the note of a last release is kept, in ms   ARGV[7] TTL of the fencing counter in ms
-- ARGV[8] owner-id prefix of the releasing client's waiters, which it hands a grant itself ('' for none)
-- Returns {1} released, {0} still held, {-1} not held by this grant; {1, owner, token, grant id} when
-- released and granted to a waiter of the releasing client, which that client must now hand it.
-- (token.lua and fair-queue.lua, prepended at load time, define nextToken and grantNext.)
local lock, owner, req, held = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3])
local note = KEYS[4]
if redis.call('HEXISTS', lock, owner) == 0 or redis.call('HGET', lock, '~req') ~= req then
    if redis.call('GET', note) == req then
        return {1}
    end
    return {-1}
end
if held > 1 then
    redis.call('HSET', lock, owner, held - 1)
    return {0}
end
redis.call('SET', note, req, 'PX', ARGV[6])
local handed = grantNext(lock, owner, KEYS[2], KEYS[3], KEYS[5], KEYS[6], ARGV[7], ARGV[4], ARGV[5], ARGV[8])
if handed then
    return {1, handed[1], handed[2], handed[3]}
end
return {1}
