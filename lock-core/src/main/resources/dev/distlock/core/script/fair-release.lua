-- Release one hold of a fair lock; the last release deletes it and wakes only the next live waiter.
-- Safe to run twice, as release.lua.
-- KEYS[1] lock hash   KEYS[2] queue of waiting owners   KEYS[3] timeouts (owner -> deadline, server ms)
-- KEYS[4] the note of a last release, <lock>:released:<owner>
-- ARGV[1] owner id   ARGV[2] grant id of the hold   ARGV[3] holds the owner has before this release
-- ARGV[4] channel prefix (a waiter's own channel is prefix .. owner)   ARGV[5] wake-up message
-- ARGV[6] how long the note of a last release is kept, in ms
-- Returns 1 released, 0 still held, -1 not held by this grant.
-- (fair-queue.lua, prepended at load time, defines wakeNext.)
local lock, owner, req, held = KEYS[1], ARGV[1], ARGV[2], tonumber(ARGV[3])
local note = KEYS[4]
if redis.call('HEXISTS', lock, owner) == 0 or redis.call('HGET', lock, '~req') ~= req then
    if redis.call('GET', note) == req then
        return 1
    end
    return -1
end
if held > 1 then
    redis.call('HSET', lock, owner, held - 1)
    return 0
end
redis.call('DEL', lock)
redis.call('SET', note, req, 'PX', ARGV[6])
wakeNext(KEYS[2], KEYS[3], ARGV[4], ARGV[5])
return 1
