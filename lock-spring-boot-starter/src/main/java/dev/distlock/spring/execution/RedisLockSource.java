package dev.distlock.spring.execution;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedLockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.spring.annotation.LockType;
import java.util.List;
import java.util.function.Supplier;

/** Locks on the application's Redis through {@link LockClient}, and RedLocks through {@link RedLockClient}. */
public final class RedisLockSource implements LockSource {

    private final Supplier<LockClient> clientSupplier;
    private final Supplier<RedLockClient> redLockSupplier;
    private volatile LockClient client;

    /** Both clients are looked up on first use: advisors are created early, before the Redis connection should be. */
    public RedisLockSource(Supplier<LockClient> client, Supplier<RedLockClient> redLockClient) {
        this.clientSupplier = client;
        this.redLockSupplier = redLockClient;
    }

    @Override
    public RedisLock lock(LockType type, boolean redlock, String key, String label) {
        if (redlock) {
            return redLockSupplier.get().getLock(key, label);
        }
        LockClient c = client();
        return switch (type) {
            case REENTRANT -> c.getLock(key, label);
            case FAIR -> c.getFairLock(key, label);
            case READ -> c.getReadWriteLock(key, label).readLock();
            case WRITE -> c.getReadWriteLock(key, label).writeLock();
        };
    }

    @Override
    public RedisMultiLock multiLock(List<String> keys, String label) {
        return client().getMultiLock(keys, label);
    }

    private LockClient client() {
        LockClient c = client;
        if (c == null) {
            c = clientSupplier.get();
            client = c;
        }
        return c;
    }
}
