-- Shared prelude: LockScript prepends it to every script that grants (Redis has no include).
-- nextToken(fence, fenceTtl[, block]) draws the next fencing token of a lock from its counter
-- <lock>:fence, reserving block tokens from it (default 1: the token alone).
-- The token is the larger of the counter plus one and the server clock in microseconds (a hybrid
-- logical clock): tokens grow with every grant, and keep growing when the counter expired, was lost
-- with a restart, or lags on a replica promoted by a failover (its clock has moved on meanwhile).
-- Every script declares the counter in its KEYS, as every key it touches: Redis Cluster refuses a
-- script that reaches an undeclared key while the slot migrates, and a counter written on both
-- nodes of a migrating slot would break the migration (BUSYKEY).
-- Tokens are Lua numbers (doubles, exact below 2^53, about 285 years of microseconds), but go to
-- redis.call as their decimal digits, made by digits(): Redis 7.0 turns a number argument into text
-- with snprintf("%.17g"). On one host (EVAL loops of SET, 26 Nov 2026) a 16-digit number argument
-- cost 1.05 µs more than its digits as a string, and string.format('%d') 0.67 µs; even the count 1
-- cost 0.67 µs more than '1', so scripts write constant counts as strings. Same bytes stored either
-- way (%.17g of an integer below 10^17 is its digits).
local function digits(n)
    return string.format('%d', n)
end
local function nextToken(fence, fenceTtl, block)
    block = block or 1
    local time = redis.call('TIME')
    local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
    -- The clock is ahead of the counter unless grants come less than a block of microseconds apart: so
    -- write the clock's block and read the counter in one command, and write again only when the
    -- counter was ahead after all.
    local last = redis.call('SET', fence, digits(clock + block - 1), 'PX', fenceTtl, 'GET')
    if last then
        local after = tonumber(last) + 1
        if after > clock then
            redis.call('SET', fence, digits(after + block - 1), 'PX', fenceTtl)
            return after
        end
    end
    return clock
end
