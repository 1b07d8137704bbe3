-- Shared prelude of every sem-*.lua script: LockScript prepends it when loading them (Redis has no include).
-- Semaphore hash <sem>: '~n' -> its number of permits (also marks the hash as a semaphore's); per holder o
-- (one grant: a handle, never re-entered): 'p:o' -> permits it holds, 't:o' -> fencing token,
-- 'd:o' -> lease end (server ms), 'q:o' -> grant id (the request that granted it; renewal and release name
-- it); '~w' -> '1' while a caller that found too few permits waits (a release then publishes).
-- settle() drops holders whose lease ended, then sets the hash TTL to the longest lease left, or deletes
-- the hash when no holder is left. Returns the permits in use and the earliest lease end (0: no holder).
local function settle(sem, now)
    local fields = redis.call('HGETALL', sem)
    local values = {}
    for i = 1, #fields, 2 do
        values[fields[i]] = fields[i + 1]
    end
    local used, first, last = 0, 0, 0
    for i = 1, #fields, 2 do
        if string.sub(fields[i], 1, 2) == 'd:' then
            local owner, ends = string.sub(fields[i], 3), tonumber(fields[i + 1])
            if ends <= now then
                redis.call('HDEL', sem, 'p:' .. owner, 't:' .. owner, 'q:' .. owner, fields[i])
            else
                used = used + tonumber(values['p:' .. owner] or '0')
                if first == 0 or ends < first then first = ends end
                if ends > last then last = ends end
            end
        end
    end
    if last == 0 then
        if #fields > 0 then
            redis.call('DEL', sem)
        end
        return 0, 0
    end
    redis.call('PEXPIRE', sem, last - now)
    return used, first
end
-- A fair semaphore's waiters, <sem>:waiters: 'a:o' -> when o first asked (server µs), 'e:o' -> server ms
-- until which its place holds unless it looks again. head() drops the places that ran out and returns
-- the owner that asked first (ties by owner id), or nil when nobody waits.
local function head(waiters, now)
    local fields = redis.call('HGETALL', waiters)
    if #fields == 0 then
        return nil
    end
    local values = {}
    for i = 1, #fields, 2 do
        values[fields[i]] = fields[i + 1]
    end
    local first, firstAt, last = nil, 0, 0
    for i = 1, #fields, 2 do
        if string.sub(fields[i], 1, 2) == 'e:' then
            local owner, ends = string.sub(fields[i], 3), tonumber(fields[i + 1])
            if ends <= now then
                redis.call('HDEL', waiters, 'a:' .. owner, fields[i])
            else
                local at = tonumber(values['a:' .. owner] or '0')
                if first == nil or at < firstAt or (at == firstAt and owner < first) then
                    first, firstAt = owner, at
                end
                if ends > last then last = ends end
            end
        end
    end
    if last > 0 then
        redis.call('PEXPIRE', waiters, last - now)
    end
    return first
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
