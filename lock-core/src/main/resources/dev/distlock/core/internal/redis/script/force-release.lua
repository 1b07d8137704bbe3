-- Delete a lock whoever holds it and wake waiters. Safe to run twice: the first run leaves a short
-- note <lock>:released:~force:<request id>, so a repeat (the reply lost, the command re-sent, maybe
-- after another owner took the freed lock) answers as the first run did and deletes nothing.
-- KEYS[1] lock hash   KEYS[2] the note of this request, <lock>:released:~force:<request id>
-- ARGV[1] wake-up channel   ARGV[2] wake-up message   ARGV[3] how long the note is kept, in ms
-- Returns 1 when a lock was deleted (by this request), 0 when it was free.
local note = KEYS[2]
local first = redis.call('GET', note)
if first then
    return tonumber(first)
end
local deleted = redis.call('DEL', KEYS[1])
redis.call('SET', note, deleted, 'PX', ARGV[3])
if deleted == 1 then
    redis.call('PUBLISH', ARGV[1], ARGV[2])
end
return deleted
