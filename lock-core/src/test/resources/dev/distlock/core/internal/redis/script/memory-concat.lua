-- Test only (DifferentialScriptsTest): a number of 16 digits joined with '..', which Redis' Lua 5.1
-- writes as %.14g (1.7640000001235e+15) and LuaJ in full digits: the one known difference.
return {ARGV[1] + 0 .. ''}
