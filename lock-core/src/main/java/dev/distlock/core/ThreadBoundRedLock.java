package dev.distlock.core;

import java.time.Duration;
import java.util.List;

/**
 * A thread-bound RedLock: the owner, identical on every node, is the {@link RedLockClient}'s id plus
 * the current thread's id.
 */
final class ThreadBoundRedLock extends AcquiringLock {

    private final RedLockEngine engine;
    private final List<LockKeys> keys;

    ThreadBoundRedLock(RedLockEngine engine, LockInfo info) {
        super(info);
        this.engine = engine;
        this.keys = engine.keys(info.name());
    }

    @Override
    boolean acquire(Duration wait, Duration lease, boolean interruptible) throws InterruptedException {
        return engine.acquire(info, keys, owner(), wait, lease, interruptible) != null;
    }

    @Override
    public void unlock() {
        RedLockHold hold = engine.hold(info.name(), owner());
        if (hold == null) {
            throw new IllegalMonitorStateException("RedLock '" + info.name() + "' is not held by the current thread ("
                    + Thread.currentThread().getName() + "): only the owner can unlock it");
        }
        engine.release(hold);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        RedLockHold hold = engine.hold(info.name(), owner());
        return hold != null && hold.isLive(System.nanoTime());
    }

    @Override
    public int getHoldCount() {
        RedLockHold hold = engine.hold(info.name(), owner());
        return hold != null && hold.isLive(System.nanoTime()) ? hold.count() : 0;
    }

    /** {@inheritDoc} Here: whether a majority of the nodes hold the lock. */
    @Override
    public boolean isLocked() {
        return engine.majorityTtl(keys) != -1;
    }

    /** {@inheritDoc} Here: the lease a majority of the nodes still exceed. */
    @Override
    public Duration remainingLease() {
        long ttl = engine.majorityTtl(keys);
        return ttl > 0 ? Duration.ofMillis(ttl) : Duration.ZERO;
    }

    @Override
    public long currentFencingToken() {
        RedLockHold hold = engine.hold(info.name(), owner());
        if (hold == null || !hold.isLive(System.nanoTime())) {
            throw new IllegalMonitorStateException("RedLock '" + info.name() + "' is not held by the current thread: no fencing token");
        }
        return hold.token;
    }

    /** {@inheritDoc} Here: on every node that answers. */
    @Override
    public boolean forceUnlock() {
        return engine.forceRelease(keys);
    }

    @SuppressWarnings("deprecation") // Thread.getId: threadId() needs Java 19, we run on 17
    private String owner() {
        return engine.clientId + ':' + Thread.currentThread().getId();
    }

    @Override
    public String toString() {
        return "RedLock[" + info.name() + "]";
    }
}
