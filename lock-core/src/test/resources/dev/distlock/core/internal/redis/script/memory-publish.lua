-- Test only (MemoryRedisTest): publishes ARGV[2], ARGV[3], ... on channel ARGV[1], in that order.
for i = 2, #ARGV do
    redis.call('PUBLISH', ARGV[1], ARGV[i])
end
return #ARGV - 1
