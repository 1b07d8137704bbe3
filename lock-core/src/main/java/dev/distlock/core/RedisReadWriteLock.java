package dev.distlock.core;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A distributed read/write lock: any number of readers at once, or one writer. Both locks are
 * thread-bound and reentrant, with their own fencing tokens and leases (renewed by the watchdog
 * unless an explicit lease is given); each read hold expires on its own, so a crashed reader
 * cannot keep the lock. The write holder may also take the read lock and then release the write
 * lock (downgrade); a read holder asking for the write lock gets an {@link IllegalStateException}
 * at once, since it would wait for itself.
 *
 * <p>Writers come first: while a writer waits, new read holds wait too, so that readers whose holds
 * overlap cannot keep it out; readers already inside still re-enter, and the write holder still takes
 * read holds. A writer that vanishes while it waits holds new readers back for two seconds at most. As
 * with {@link java.util.concurrent.locks.ReentrantReadWriteLock}, an owner holding a read hold that
 * waits for a new read hold of another owner (another thread, an async handle) while a writer waits
 * waits until one of the waits ends.
 *
 * <pre>{@code
 * RedisReadWriteLock prices = client.getReadWriteLock("prices");
 * prices.readLock().lock();
 * try {
 *     ... read ...
 * } finally {
 *     prices.readLock().unlock();
 * }
 * }</pre>
 */
public interface RedisReadWriteLock extends ReadWriteLock {

    /** The lock's key. */
    String getKey();

    /** The shared lock; {@link RedisLock#isLocked()} and {@link RedisLock#forceUnlock()} act on the whole name. */
    @Override
    RedisLock readLock();

    /** The exclusive lock; {@link RedisLock#isLocked()} and {@link RedisLock#forceUnlock()} act on the whole name. */
    @Override
    RedisLock writeLock();
}
