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
-- itself: it gets its whole lease and no message, and {owner, token, grant id, lease ms, promised...} is
-- returned. promised names (owner, grant id) of up to cohortMax waiters of the same client queued right
-- behind it: they stay queued, and the client may pass the grant down that line in-process, in queue
-- order, each with the next of the fencing tokens reserved here, before it releases in Redis (naming
-- those it passed over, which then leave the queue; see dropServed). Any other waiter is told on its own
-- channel, and until it renews the grant lasts no longer than its place in the queue would have (its
-- deadline), so a waiter that died meanwhile blocks nobody for longer. The message carries the grant,
-- "~g <token> <grant id> <TTL ms> <message>" (a grant id has no space: see <lock>:waiting), so that the waiter holds the lock on receipt, without
-- another script; a waiter that does not take it that way (it missed the message, or left) finds it with
-- its next attempt or gives it back with its leave, as before. Published once per grant: a script run
-- again grants nothing again (see fair-release.lua).
-- A waiter queued without a request (by an older client) is only woken: its own attempt takes the lock.
local function grantNext(lock, previous, queue, timeouts, waiting, fence, fenceTtl, prefix, message, localPrefix, cohortMax)
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
    local isLocal = localPrefix ~= '' and string.sub(head, 1, #localPrefix) == localPrefix
    local reply = {head, 0, req, lease}
    if isLocal and cohortMax > 0 then
        local behind = redis.call('LRANGE', queue, 0, cohortMax - 1)
        local requests = #behind > 0 and redis.call('HMGET', waiting, unpack(behind)) or {}
        for i, waiter in ipairs(behind) do
            local r = requests[i]
            if not r or string.sub(waiter, 1, #localPrefix) ~= localPrefix then
                break
            end
            reply[#reply + 1] = waiter
            reply[#reply + 1] = string.sub(r, 1, string.find(r, ' ', 1, true) - 1)
        end
    end
    local promised = (#reply - 4) / 2
    local token = nextToken(fence, fenceTtl, 1 + promised)
    if previous and previous ~= head then
        redis.call('HDEL', lock, previous, '~c')
    elseif previous then
        redis.call('HDEL', lock, '~c')
    end
    if promised > 0 then
        -- '~c': the grant may pass between this client's waiters, so its owner's own later requests must
        -- not take it for a grant nobody learnt of (see fair-acquire.lua)
        redis.call('HSET', lock, head, '1', '~token', digits(token), '~req', req, '~c', '1')
    else
        redis.call('HSET', lock, head, '1', '~token', digits(token), '~req', req)
    end
    if isLocal then
        redis.call('PEXPIRE', lock, lease)
        reply[2] = token
        return reply
    end
    local ttl = math.max(1, math.min(lease, deadline - now))
    redis.call('PEXPIRE', lock, ttl)
    redis.call('PUBLISH', prefix .. head, '~g ' .. digits(token) .. ' ' .. req .. ' ' .. digits(ttl) .. ' ' .. message)
    return nil
end
-- A last release of a grant that its client passed down a line of its own waiters: served names the
-- (owner, grant id) pairs it passed over ("owner grant owner grant ..."), which leave the queue unless
-- that owner has queued again since under another grant id.
local function dropServed(queue, timeouts, waiting, served)
    local owner = nil
    for word in string.gmatch(served, '%S+') do
        if not owner then
            owner = word
        else
            local r = redis.call('HGET', waiting, owner)
            if r and string.sub(r, 1, #word + 1) == word .. ' ' then
                redis.call('LREM', queue, 1, owner)
                redis.call('ZREM', timeouts, owner)
                redis.call('HDEL', waiting, owner)
            end
            owner = nil
        end
    end
end
