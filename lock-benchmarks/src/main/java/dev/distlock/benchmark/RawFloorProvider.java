package dev.distlock.benchmark;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The floor a Redis lock cannot go below: one EVALSHA to take a key (SET NX PX) and one to delete it
 * if still ours, through Lettuce's synchronous API on one shared connection, with no renewal, no
 * re-entry, no fencing and no waiting. Only the uncontended scenarios run it: it is what two round
 * trips cost on this machine, not a lock anyone should use.
 */
final class RawFloorProvider implements LockProvider {

    private static final String TAKE =
            "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end return 0";
    private static final String DROP =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String take;
    private final String drop;
    private final AtomicLong owners = new AtomicLong();

    RawFloorProvider(String host, int port) {
        client = RedisClient.create(RedisURI.create(host, port));
        connection = client.connect();
        redis = connection.sync();
        take = redis.scriptLoad(TAKE);
        drop = redis.scriptLoad(DROP);
    }

    @Override
    public Lock lock(String key) {
        String owner = Long.toString(owners.incrementAndGet());
        String redisKey = redisKey(key);
        return new Lock() {
            @Override
            public void lock() {
                while (!tryLock()) {
                    Thread.onSpinWait(); // never reached in the uncontended scenarios it runs
                }
            }

            @Override
            public boolean tryLock() {
                Long taken = redis.evalsha(take, ScriptOutputType.INTEGER, new String[] {redisKey}, owner, "30000");
                return taken == 1L;
            }

            @Override
            public void unlock() {
                redis.evalsha(drop, ScriptOutputType.INTEGER, new String[] {redisKey}, owner);
            }

            @Override
            public void lockInterruptibly() {
                lock();
            }

            @Override
            public boolean tryLock(long time, TimeUnit unit) {
                throw new UnsupportedOperationException("the raw floor only takes free keys");
            }

            @Override
            public Condition newCondition() {
                throw new UnsupportedOperationException();
            }
        };
    }

    @Override
    public String redisKey(String key) {
        return "raw:" + key;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
