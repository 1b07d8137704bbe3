-- Release one read or write hold. The last hold deletes the lock; the write hold's last release
-- with read holds left turns the lock to read mode. Both publish, so every waiter looks again.
-- Safe to run twice, as release.lua (a last release leaves the note <lock>:released:<kind>:<owner>).
-- KEYS[1] read/write lock hash   KEYS[2] the note of a last release, <lock>:released:<kind>:<owner>
-- ARGV[1] hold kind ('r' or 'w')   ARGV[2] owner id   ARGV[3] grant id of the hold
-- ARGV[4] holds of this kind the owner has before this release
-- ARGV[5] wake-up channel   ARGV[6] wake-up message   ARGV[7] how long the note is kept, in ms
-- Returns 1 released, 0 still held, -1 not held by this grant (or lease over).
-- (rw-settle.lua, prepended at load time, defines settle(lock, now) and sets now to the server time in ms.)
local lock, kind, owner, req, held = KEYS[1], ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local hold = kind .. ':' .. owner
local note = KEYS[2]
if redis.call('HEXISTS', lock, 'mode') == 1 then
    settle(lock, now)
end
if redis.call('HEXISTS', lock, hold) == 0 or redis.call('HGET', lock, kind .. 'q:' .. owner) ~= req then
    if redis.call('GET', note) == req then
        return 1
    end
    return -1
end
if held > 1 then
    redis.call('HSET', lock, hold, held - 1)
    return 0
end
redis.call('HDEL', lock, hold, kind .. 't:' .. owner, kind .. 'd:' .. owner, kind .. 'q:' .. owner)
local left = settle(lock, now)
redis.call('SET', note, req, 'PX', ARGV[7])
if left == -1 or (kind == 'w' and left == 0) then
    redis.call('PUBLISH', ARGV[5], ARGV[6])
end
return 1
