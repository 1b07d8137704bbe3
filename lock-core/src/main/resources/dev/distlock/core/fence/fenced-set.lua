-- Write a value only under a fencing token at least as large as the last one written to the key: a
-- holder whose lock was lost, and a newer holder has written since, is refused. Safe to run twice: the
-- same token writes the same value again and is accepted again.
-- KEYS[1] the value's key   KEYS[2] its fence (the last token accepted), in the same Cluster slot
-- ARGV[1] token (decimal digits)   ARGV[2] value   ARGV[3] TTL of both keys in ms, 0 for none
-- Returns {1, token} when written, {0, the fence's token} when refused.
local fence = redis.call('GET', KEYS[2])
if fence and tonumber(fence) > tonumber(ARGV[1]) then
    return {0, tonumber(fence)}
end
if ARGV[3] == '0' then
    redis.call('SET', KEYS[2], ARGV[1])
    redis.call('SET', KEYS[1], ARGV[2])
else
    redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
    redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return {1, tonumber(ARGV[1])}
