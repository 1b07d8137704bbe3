package dev.distlock.core;

/** The read and write lock of one name, both thread-bound. */
record ThreadBoundReadWriteLock(String key, RedisLock readLock, RedisLock writeLock) implements RedisReadWriteLock {

    @Override
    public String getKey() {
        return key;
    }

    @Override
    public String toString() {
        return "RedisReadWriteLock[" + key + "]";
    }
}
