-- Shared prelude of every rw-*.lua script: LockScript prepends it when loading them (Redis has no include).
-- Read/write hash layout (one hash per name, shared by both kinds):
--   mode -> 'read' | 'write';  per hold of kind k ('r' or 'w') and owner o:
--   'k:o' -> hold count,  'kt:o' -> fencing token,  'kd:o' -> lease end (server ms),
--   'kq:o' -> grant id (the request that granted the hold; re-entry, renewal and release name it).
-- settle() drops holds whose lease ended, then sets mode and the hash TTL (the longest lease left),
-- or deletes the hash when no hold is left. Returns the write hold's lease end, 0 in read mode,
-- -1 when the lock is free.
local function settle(lock, now)
    local fields = redis.call('HGETALL', lock)
    local last, writerEnd, holds = 0, 0, 0
    for i = 1, #fields, 2 do
        local prefix = string.sub(fields[i], 1, 3)
        if prefix == 'rd:' or prefix == 'wd:' then
            local kind, owner, ends = string.sub(prefix, 1, 1), string.sub(fields[i], 4), tonumber(fields[i + 1])
            if ends <= now then
                redis.call('HDEL', lock, kind .. ':' .. owner, kind .. 't:' .. owner, kind .. 'q:' .. owner, fields[i])
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
-- Waiting writers ('<lock>:writers': owner -> server ms until which the mark holds) keep new readers
-- out, so that readers whose holds overlap cannot keep a writer out for ever. waitingWriter() drops the
-- marks that ran out and returns when the last of the others' ends, 0 when no other writer waits.
local function waitingWriter(writers, owner, now)
    if redis.call('EXISTS', writers) == 0 then
        return 0
    end
    local marks = redis.call('HGETALL', writers)
    local last = 0
    for i = 1, #marks, 2 do
        local ends = tonumber(marks[i + 1])
        if ends <= now then
            redis.call('HDEL', writers, marks[i])
        elseif marks[i] ~= owner and ends > last then
            last = ends
        end
    end
    return last
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
