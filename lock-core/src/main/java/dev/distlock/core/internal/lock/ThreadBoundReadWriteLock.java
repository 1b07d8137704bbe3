package dev.distlock.core.internal.lock;

import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisReadWriteLock;

/** The read and write lock of one name, both thread-bound. */
public record ThreadBoundReadWriteLock(String key, RedisLock readLock, RedisLock writeLock)
        implements RedisReadWriteLock {

    @Override
    public String getKey() {
        return key;
    }

    @Override
    public String toString() {
        return "RedisReadWriteLock[" + key + "]";
    }
}
