package dev.distlock.core;

/** The read and write lock of one name, both thread-bound. */
record ThreadBoundReadWriteLock(String name, RedisLock readLock, RedisLock writeLock) implements RedisReadWriteLock {

    @Override
    public String getName() {
        return name;
    }

    @Override
    public String toString() {
        return "RedisReadWriteLock[" + name + "]";
    }
}
