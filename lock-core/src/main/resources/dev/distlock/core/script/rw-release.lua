-- Release one read or write hold. The last hold deletes the lock; the write hold's last release
-- with read holds left turns the lock to read mode. Both publish, so every waiter looks again.
-- KEYS[1] read/write lock hash   KEYS[2] wake-up channel
-- ARGV[1] hold kind ('r' or 'w')   ARGV[2] owner id   ARGV[3] wake-up message
-- Returns 1 released, 0 still held (hold count decremented), -1 not held by this owner (or lease over).
-- Read/write hash layout (one hash per name, shared by both kinds):
--   mode -> 'read' | 'write';  per hold of kind k ('r' or 'w') and owner o:
--   'k:o' -> hold count,  'kt:o' -> fencing token,  'kd:o' -> lease end (server ms).
-- settle() drops holds whose lease ended, then sets mode and the hash TTL (the longest lease left),
-- or deletes the hash when no hold is left. Returns the write hold's lease end, 0 in read mode,
-- -1 when the lock is free. Kept identical in every rw-*.lua script.
local function settle(lock, now)
    local fields = redis.call('HGETALL', lock)
    local last, writerEnd, holds = 0, 0, 0
    for i = 1, #fields, 2 do
        local prefix = string.sub(fields[i], 1, 3)
        if prefix == 'rd:' or prefix == 'wd:' then
            local kind, owner, ends = string.sub(prefix, 1, 1), string.sub(fields[i], 4), tonumber(fields[i + 1])
            if ends <= now then
                redis.call('HDEL', lock, kind .. ':' .. owner, kind .. 't:' .. owner, fields[i])
            else
                holds = holds + 1
                if ends > last then last = ends end
                if kind == 'w' then writerEnd = ends end
            end
        end
    end
    if holds == 0 then
        redis.call('DEL', lock)
        return -1
    end
    redis.call('HSET', lock, 'mode', writerEnd > 0 and 'write' or 'read')
    redis.call('PEXPIRE', lock, last - now)
    return writerEnd
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
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
