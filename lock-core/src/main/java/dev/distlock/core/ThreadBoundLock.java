package dev.distlock.core;

import java.time.Duration;

/**
 * A thread-bound, reentrant lock of any {@link LockKind}: the owner is this client's id plus the
 * current thread's id.
 */
final class ThreadBoundLock extends AcquiringLock {

    private final LockEngine engine;
    private final LockKind kind;
    private final LockKeys keys;

    ThreadBoundLock(LockEngine engine, LockKind kind, LockInfo info) {
        super(info);
        this.engine = engine;
        this.kind = kind;
        this.keys = engine.keys(info.name());
    }

    @Override
    boolean acquire(Duration wait, Duration lease, boolean interruptible) throws InterruptedException {
        return engine.acquire(kind, info, keys, owner(), wait, lease, interruptible) != null;
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
