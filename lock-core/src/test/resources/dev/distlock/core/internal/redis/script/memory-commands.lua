-- Test only (DifferentialScriptsTest): runs ARGV as commands separated by '|' words, each with
-- redis.pcall, and returns one line per reply as Lua sees it (errors included), so that every reply's
-- conversion to Lua is compared too.
local function describe(v)
    if type(v) == 'table' then
        if v.ok then return 'status ' .. v.ok end
        if v.err then return 'error ' .. v.err end
        local parts = {}
        for i = 1, #v do parts[#parts + 1] = describe(v[i]) end
        return '[' .. table.concat(parts, ', ') .. ']'
    end
    return type(v) .. ' ' .. tostring(v)
end
local lines, command = {}, {}
for i = 1, #ARGV + 1 do
    if i > #ARGV or ARGV[i] == '|' then
        lines[#lines + 1] = table.concat(command, ' ') .. ' -> ' .. describe(redis.pcall(unpack(command)))
        command = {}
    else
        command[#command + 1] = ARGV[i]
    end
end
return lines
