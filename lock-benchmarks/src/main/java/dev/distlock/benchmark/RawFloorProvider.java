package dev.distlock.benchmark;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.script.LockScript;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The floor a Redis lock cannot go below: one EVALSHA to take a key (SET NX PX) and one to delete it
 * if still ours, through Lettuce's synchronous API on one shared connection, with no renewal, no
 * re-entry, no fencing and no waiting. Only the uncontended scenarios run it: it is what two round
 * trips cost on this machine, not a lock anyone should use.
 *
 * <p>With {@code distlockScripts} the same bare client runs distlock's own acquire and release scripts
 * instead, with the keys and arguments distlock sends for a watchdog lock taken without a wait limit
 * (fencing counter, grant ids, release note, wake-up channel). Between the two floors is what those
 * scripts cost on Redis's side; between this one and distlock is what distlock's client adds.
 */
final class RawFloorProvider implements LockProvider {

    static final String TAKE = "if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end return 0";
    static final String DROP =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

    private final boolean distlockScripts;
    private final String clientId = UUID.randomUUID().toString();
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String take;
    private final String drop;
    private final AtomicLong owners = new AtomicLong();

    RawFloorProvider(String host, int port, boolean distlockScripts) {
        this.distlockScripts = distlockScripts;
        client = RedisClient.create(RedisURI.create(host, port));
        connection = client.connect();
        redis = connection.sync();
        take = redis.scriptLoad(distlockScripts ? LockScript.ACQUIRE.body() : TAKE);
        drop = redis.scriptLoad(distlockScripts ? LockScript.RELEASE.body() : DROP);
    }

    @Override
    public Lock lock(String key) {
        String owner =
                distlockScripts ? clientId + ":" + owners.incrementAndGet() : Long.toString(owners.incrementAndGet());
        String redisKey = redisKey(key);
        return distlockScripts
                ? new DistlockScriptsLock(redisKey, owner)
                : new FloorLock() {
                    @Override
                    public boolean tryLock() {
                        Long taken = redis.evalsha(
                                take,
                                ScriptOutputType.INTEGER,
                                new String[] {redisKey},
                                owner,
                                DistlockScriptCall.LEASE_MS);
                        return taken == 1L;
                    }

                    @Override
                    public void unlock() {
                        redis.evalsha(drop, ScriptOutputType.INTEGER, new String[] {redisKey}, owner);
                    }
                };
    }

    /** distlock's scripts for one owner; its workers use a lock from one thread only. */
    private final class DistlockScriptsLock extends FloorLock {
        private final String owner;
        private final String redisKey;
        private final String[] acquireKeys;
        private final String[] releaseKeys;
        private long grants;
        private String grantId = "";

        DistlockScriptsLock(String redisKey, String owner) {
            this.owner = owner;
            this.redisKey = redisKey;
            this.acquireKeys = DistlockScriptCall.acquireKeys(redisKey);
            this.releaseKeys = DistlockScriptCall.releaseKeys(redisKey, owner);
        }

        @Override
        public boolean tryLock() {
            grantId = Long.toString(++grants);
            List<Object> reply = redis.evalsha(
                    take, ScriptOutputType.MULTI, acquireKeys, DistlockScriptCall.acquireArgs(owner, grantId));
            return (Long) reply.get(0) == 1L;
        }

        @Override
        public void unlock() {
            redis.evalsha(
                    drop,
                    ScriptOutputType.INTEGER,
                    releaseKeys,
                    DistlockScriptCall.releaseArgs(redisKey, owner, grantId, clientId));
        }
    }

    /** A lock of the floor: it only takes free keys. */
    private abstract static class FloorLock implements Lock {
        @Override
        public void lock() {
            while (!tryLock()) {
                Thread.onSpinWait(); // never reached in the uncontended scenarios it runs
            }
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
    }

    @Override
    public String redisKey(String key) {
        return distlockScripts ? "lock:{" + key + "}" : "raw:" + key;
    }

    @Override
    public void close() {
        connection.close();
        ClientShutdown.shutdown(client);
    }
}
