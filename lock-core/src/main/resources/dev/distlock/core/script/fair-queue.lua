-- Shared prelude of the fair-*.lua scripts: LockScript prepends it when loading them.
-- A fair lock is the reentrant lock's hash plus <lock>:queue (waiting owners, oldest first) and
-- <lock>:timeouts (owner -> deadline in server ms); waiters that stopped coming back leave from the head.
local function serverMs()
    local time = redis.call('TIME')
    return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
-- Drops dead waiters from the head; returns the first live waiter (or nil) and whether any was dropped.
local function liveHead(queue, timeouts, now)
    local dropped = false
    local head = redis.call('LINDEX', queue, 0)
    while head do
        local deadline = redis.call('ZSCORE', timeouts, head)
        if deadline and tonumber(deadline) > now then
            return head, dropped
        end
        redis.call('LPOP', queue)
        redis.call('ZREM', timeouts, head)
        dropped = true
        head = redis.call('LINDEX', queue, 0)
    end
    return nil, dropped
end
-- Wakes the next live waiter on its own channel (prefix .. owner): its turn has come.
local function wakeNext(queue, timeouts, prefix, message)
    local head = liveHead(queue, timeouts, serverMs())
    if head then
        redis.call('PUBLISH', prefix .. head, message)
    end
end
