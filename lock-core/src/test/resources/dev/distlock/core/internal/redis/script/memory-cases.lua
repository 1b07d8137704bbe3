-- Test only (MemoryRedisTest and the differential check): small cases of Redis' Lua, chosen by ARGV[1].
local case = ARGV[1]
if case == 'reply' then
    return {1, 'a', false, 3.9, -3.9, true, nil, 'after nil'}
elseif case == 'status' then
    return redis.call('SET', KEYS[1], 'v')
elseif case == 'numbers' then
    redis.call('SET', KEYS[1], 1.5)
    redis.call('HSET', KEYS[2], 'big', 1e20, 'token', 1764000000123456, 'third', 1 / 3)
    return {string.format('%d', 1764000000123456), tostring(1e15), tostring(1 / 3), tostring(12), redis.call('GET', KEYS[1])}
elseif case == 'pcall' then
    local reply = redis.pcall('GET', KEYS[1])
    return {type(reply), reply.err}
elseif case == 'wrongtype' then
    return redis.call('GET', KEYS[1])
elseif case == 'runtime' then
    local nothing
    return nothing + 1
elseif case == 'global' then
    return undefinedName
elseif case == 'error_reply' then
    return redis.error_reply('MINE custom')
end
return redis.call('NOSUCHCOMMAND')
