-- Extend the lease of a lock, only while the owner still holds it (never revives a released lock).
-- KEYS[1] lock hash
-- ARGV[1] owner id   ARGV[2] lease in ms
-- Returns 1 renewed, 0 not held by this owner.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return 1
end
return 0
