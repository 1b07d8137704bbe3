-- Release one read or write hold. The last hold deletes the lock; the write hold's last release
-- with read holds left turns the lock to read mode. Both publish, so every waiter looks again.
-- KEYS[1] read/write lock hash   KEYS[2] wake-up channel
-- ARGV[1] hold kind ('r' or 'w')   ARGV[2] owner id   ARGV[3] wake-up message
-- Returns 1 released, 0 still held (hold count decremented), -1 not held by this owner (or lease over).
-- (rw-settle.lua, prepended at load time, defines settle(lock, now) and sets now to the server time in ms.)
local lock, kind, owner = KEYS[1], ARGV[1], ARGV[2]
if redis.call('HEXISTS', lock, 'mode') == 0 then
    return -1
end
settle(lock, now)
local hold = kind .. ':' .. owner
if redis.call('HEXISTS', lock, hold) == 0 then
    return -1
end
if redis.call('HINCRBY', lock, hold, -1) > 0 then
    return 0
end
redis.call('HDEL', lock, hold, kind .. 't:' .. owner, kind .. 'd:' .. owner)
local left = settle(lock, now)
if left == -1 or (kind == 'w' and left == 0) then
    redis.call('PUBLISH', KEYS[2], ARGV[3])
end
return 1
