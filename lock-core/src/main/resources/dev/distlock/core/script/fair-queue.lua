-- Shared prelude of the fair-*.lua scripts: LockScript prepends it (after token.lua) when loading them.
-- A fair lock is the reentrant lock's hash plus <lock>:queue (waiting owners, oldest first),
-- <lock>:timeouts (owner -> deadline in server ms; waiters that stopped coming back leave from the head)
-- and <lock>:waiting (owner -> "<grant id> <lease ms>", what a release needs to grant the lock to that waiter).
local function serverMs()
    local time = redis.call('TIME')
    return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
-- Drops dead waiters from the head; returns the first live waiter (or nil) and whether any was dropped.
local function liveHead(queue, timeouts, waiting, now)
    local dropped = false
    local head = redis.call('LINDEX', queue, 0)
    while head do
        local deadline = redis.call('ZSCORE', timeouts, head)
        if deadline and tonumber(deadline) > now then
            return head, dropped
        end
        redis.call('LPOP', queue)
        redis.call('ZREM', timeouts, head)
        redis.call('HDEL', waiting, head)
        dropped = true
        head = redis.call('LINDEX', queue, 0)
    end
    return nil, dropped
end
-- The lock is free, or only held by previous (whose field goes): grants it to the next live waiter at
-- once, under that waiter's own grant id, so the waiter only has to learn of it (its next attempt finds
-- the grant, as a re-sent acquire would); deletes the lock when there is nobody to grant it to. The
-- lock's hash is rewritten in place, never deleted and made again: while its Cluster slot migrates, a
-- script may not create a key that is not on the node.
-- A waiter of the client whose owner ids start with localPrefix is handed the grant by that client
-- itself: it gets its whole lease and no message, and {owner, token, grant id} is returned. Any other
-- waiter is told on its own channel, and until it confirms the grant lasts no longer than its place in
-- the queue would have (its deadline), so a waiter that died meanwhile blocks nobody for longer.
-- A waiter queued without a request (by an older client) is only woken: its own attempt takes the lock.
local function grantNext(lock, previous, queue, timeouts, waiting, fence, fenceTtl, prefix, message, localPrefix)
    local now = serverMs()
    local head = liveHead(queue, timeouts, waiting, now)
    local request = head and redis.call('HGET', waiting, head)
    if not request then
        redis.call('DEL', lock)
        if head then
            redis.call('PUBLISH', prefix .. head, message)
        end
        return nil
    end
    local space = string.find(request, ' ', 1, true)
    local req, lease = string.sub(request, 1, space - 1), tonumber(string.sub(request, space + 1))
    local deadline = tonumber(redis.call('ZSCORE', timeouts, head))
    redis.call('LPOP', queue)
    redis.call('ZREM', timeouts, head)
    redis.call('HDEL', waiting, head)
    local token = nextToken(fence, fenceTtl)
    if previous and previous ~= head then
        redis.call('HDEL', lock, previous)
    end
    redis.call('HSET', lock, head, 1, '~token', string.format('%.0f', token), '~req', req)
    if localPrefix ~= '' and string.sub(head, 1, #localPrefix) == localPrefix then
        redis.call('PEXPIRE', lock, lease)
        return {head, token, req}
    end
    redis.call('PEXPIRE', lock, math.max(1, math.min(lease, deadline - now)))
    redis.call('PUBLISH', prefix .. head, message)
    return nil
end
