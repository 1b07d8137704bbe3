-- Test only (MemoryRedisTest): runs ARGV as one command and returns its reply as the script's.
return redis.call(unpack(ARGV))
