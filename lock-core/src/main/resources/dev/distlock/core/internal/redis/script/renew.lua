-- Extend the lease of a lock, only while the owner still holds the same grant (never revives a
-- released lock, never stretches a later grant of the same owner).
-- KEYS[1] lock hash
-- ARGV[1] owner id   ARGV[2] grant id of the hold   ARGV[3] lease in ms
-- Returns 1 renewed, 0 not held by this grant.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 and redis.call('HGET', KEYS[1], '~req') == ARGV[2] then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    return 1
end
return 0
