package dev.distlock.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A thread-bound, reentrant lock of any {@link LockKind}: the owner is this client's id plus the
 * current thread's id.
 */
final class ThreadBoundLock implements RedisLock {

    private final LockEngine engine;
    private final LockKind kind;
    private final LockInfo info;
    private final LockKeys keys;

    ThreadBoundLock(LockEngine engine, LockKind kind, LockInfo info) {
        this.engine = engine;
        this.kind = kind;
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
            engine.acquire(kind, info, keys, owner(), null, lease, false);
        } catch (InterruptedException e) {
            throw new IllegalStateException("unreachable: uninterruptible acquire was interrupted", e);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        engine.acquire(kind, info, keys, owner(), null, null, true);
    }

    @Override
    public boolean tryLock() {
        try {
            return engine.acquire(kind, info, keys, owner(), Duration.ZERO, null, false) != null;
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
        return engine.acquire(kind, info, keys, owner(), waitTime, lease, true) != null;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null);
    }

    @Override
    public void unlock() {
        Hold hold = engine.hold(kind, keys, owner());
        if (hold == null) {
            throw new IllegalMonitorStateException("Lock '" + info.name() + "' is not held by the current thread ("
                    + Thread.currentThread().getName() + "): only the owner can unlock it");
        }
        engine.release(hold);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        Hold hold = engine.hold(kind, keys, owner());
        return hold != null && hold.isLive(System.nanoTime());
    }

    @Override
    public int getHoldCount() {
        Hold hold = engine.hold(kind, keys, owner());
        return hold != null && hold.isLive(System.nanoTime()) ? hold.count() : 0;
    }

    @Override
    public boolean isLocked() {
        return engine.isLocked(keys);
    }

    @Override
    public Duration remainingLease() {
        return engine.remainingLease(keys);
    }

    @Override
    public long currentFencingToken() {
        Hold hold = engine.hold(kind, keys, owner());
        if (hold == null || !hold.isLive(System.nanoTime())) {
            throw new IllegalMonitorStateException("Lock '" + info.name() + "' is not held by the current thread: no fencing token");
        }
        return hold.token;
    }

    @Override
    public boolean forceUnlock() {
        return engine.forceRelease(keys, kind.wakesAllOnRelease());
    }

    @SuppressWarnings("deprecation") // Thread.getId: threadId() needs Java 19, we run on 17
    private String owner() {
        return engine.clientId + ':' + Thread.currentThread().getId();
    }

    @Override
    public String toString() {
        return "RedisLock[" + info.name() + "]";
    }
}
