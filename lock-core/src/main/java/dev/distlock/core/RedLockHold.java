package dev.distlock.core;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One thread's hold on a RedLock, as its {@link RedLockClient} knows it. Re-entry is counted here
 * only: every node keeps a hold count of one, so the last local release frees them all at once.
 */
final class RedLockHold {

    final LockInfo info;
    final List<LockKeys> keys;
    final String owner;
    final long token;
    /** The id of the request that granted the hold on every node; renewals and releases name it. */
    final String grantId;
    final long acquiredNanos;
    /** Explicit lease in ms, or 0 for a watchdog lease. */
    final long explicitLeaseMs;
    /** Touched only by the owning thread. */
    private int count = 1;
    private final AtomicReference<String> lostReason = new AtomicReference<>();
    /** When a majority of nodes may have let the lease run out, with the clock drift allowance taken off. */
    volatile long validUntilNanos;
    volatile boolean released;
    /** The thread that acquired the hold, which owns it. */
    final Thread thread = Thread.currentThread();

    RedLockHold(LockInfo info, List<LockKeys> keys, String owner, String grantId, long token, long explicitLeaseMs,
            long acquiredNanos, long validUntilNanos) {
        this.grantId = grantId;
        this.info = info;
        this.keys = keys;
        this.owner = owner;
        this.token = token;
        this.explicitLeaseMs = explicitLeaseMs;
        this.acquiredNanos = acquiredNanos;
        this.validUntilNanos = validUntilNanos;
    }

    boolean watchdog() {
        return explicitLeaseMs == 0;
    }

    int count() {
        return count;
    }

    void reentered() {
        count++;
    }

    /** Drops one local hold; returns the holds left. */
    int exit() {
        return --count;
    }

    boolean isLive(long nowNanos) {
        return !released && lostReason.get() == null && nowNanos - validUntilNanos < 0;
    }

    /** Marks the hold lost; true only for the first caller, so loss is reported once. */
    boolean markLost(String reason) {
        return lostReason.compareAndSet(null, reason);
    }

    String lostReason() {
        return lostReason.get();
    }
}
