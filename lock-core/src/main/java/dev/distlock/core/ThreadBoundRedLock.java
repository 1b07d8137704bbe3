package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A thread-bound RedLock: the owner, identical on every node, is the {@link RedLockClient}'s id plus
 * the current thread's id.
 */
final class ThreadBoundRedLock implements RedisLock {

    private final RedLockEngine engine;
    private final LockInfo info;
    private final List<LockKeys> keys;

    ThreadBoundRedLock(RedLockEngine engine, LockInfo info) {
        this.engine = engine;
        this.info = info;
        this.keys = engine.keys(info.name());
    }

    @Override
    public String getName() {
        return info.name();
    }

    @Override
    public void lock() {
        acquireUninterruptibly(null);
    }

    @Override
    public void lock(Duration lease) {
        acquireUninterruptibly(Durations.requireLease(lease, info.name()));
    }

    private void acquireUninterruptibly(Duration lease) {
        try {
            engine.acquire(info, keys, owner(), null, lease, false);
        } catch (InterruptedException e) {
            throw new IllegalStateException("unreachable: uninterruptible acquire was interrupted", e);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        engine.acquire(info, keys, owner(), null, null, true);
    }

    @Override
    public boolean tryLock() {
        try {
            return engine.acquire(info, keys, owner(), Duration.ZERO, null, false) != null;
        } catch (InterruptedException e) {
            throw new IllegalStateException("unreachable: a single attempt does not wait", e);
        }
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return tryLock(waitTime, null);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration lease) throws InterruptedException {
        Durations.requireNonNegative(waitTime, "waitTime of lock '" + info.name() + "'");
        Durations.requireLease(lease, info.name());
        return engine.acquire(info, keys, owner(), waitTime, lease, true) != null;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null);
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
