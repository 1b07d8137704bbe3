package dev.distlock.core;

/**
 * The type of a lock, as {@link LockInfo#type()} reports it and as metrics tag it (spelt as here,
 * the way {@code @DistributedLock(type = ...)} spells it).
 */
public enum LockType {
    /** A reentrant lock ({@link LockClient#getLock(String)}). */
    REENTRANT,
    /** A fair lock, granted in arrival order ({@link LockClient#getFairLock(String)}). */
    FAIR,
    /** The read lock of a {@link RedisReadWriteLock}. */
    READ,
    /** The write lock of a {@link RedisReadWriteLock}. */
    WRITE,
    /** A lock held on a majority of independent masters ({@link RedLockClient}). */
    REDLOCK,
    /** Permits of a semaphore ({@link LockClient#getSemaphore(String, int)}). */
    SEMAPHORE,
    /** Permits of a fair semaphore, granted in arrival order ({@link LockClient#getFairSemaphore(String, int)}). */
    FAIR_SEMAPHORE
}
