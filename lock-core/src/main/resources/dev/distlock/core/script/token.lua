-- Shared prelude: LockScript prepends it to every script that grants (Redis has no include).
-- nextToken(lock, fenceTtl) draws the next fencing token of a lock from its counter <lock>:fence.
-- The token is the larger of the counter plus one and the server clock in microseconds (a hybrid
-- logical clock): tokens grow with every grant, and keep growing when the counter expired, was lost
-- with a restart, or lags on a replica promoted by a failover (its clock has moved on meanwhile).
-- The counter is derived from the lock key, not declared in KEYS: a script whose declared keys all
-- live or all move together is never refused with TRYAGAIN while its slot migrates between masters.
local function nextToken(lock, fenceTtl)
    local fence = lock .. ':fence'
    local time = redis.call('TIME')
    local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
    local token = tonumber(redis.call('GET', fence) or '0') + 1
    if clock > token then
        token = clock
    end
    redis.call('SET', fence, string.format('%.0f', token), 'PX', fenceTtl)
    return token
end
