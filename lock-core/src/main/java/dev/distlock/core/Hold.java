package dev.distlock.core;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One owner's hold on one lock, as this client knows it: count, fencing token, lease, and whether
 * it was lost. The owner is a thread today; async callers will own a hold through a handle.
 */
final class Hold {

    final LockKind kind;
    /** The thread that acquired the hold (its owner for thread-bound locks). */
    final Thread thread = Thread.currentThread();
    final LockInfo info;
    final LockKeys keys;
    final String owner;
    final long token;
    /** The id of the request that granted this hold in Redis; renewals and releases name it. */
    final String grantId;
    final long acquiredNanos;
    /** Explicit lease in ms, or 0 for a watchdog lease. */
    final long explicitLeaseMs;
    private final AtomicInteger count;
    private final AtomicReference<String> lostReason = new AtomicReference<>();
    /** When the lease in Redis ends at the latest, as far as this client knows. */
    volatile long leaseEndNanos;
    volatile boolean released;
    /** The local gate this hold took part in, until its last release; see {@link LocalGates}. */
    volatile LocalGates.Gate gate;
    /** Whether this hold owns its gate's permit (false when it went past an abandoned holder). */
    volatile boolean ownsPermit;

    /** The timer that reports an explicit lease running out while held; {@code null} for watchdog leases. */
    volatile java.util.concurrent.Future<?> leaseTimer;

    /**
     * @param sentNanos when the granting request was sent: the lease is counted from then, never from
     *        the reply, so a late reply cannot make the hold look longer than Redis keeps it
     */
    Hold(LockKind kind, LockInfo info, LockKeys keys, String owner, Grant grant, long leaseMs, boolean watchdog, long sentNanos) {
        this.kind = kind;
        this.info = info;
        this.keys = keys;
        this.owner = owner;
        this.token = grant.token();
        this.grantId = grant.grantId();
        this.count = new AtomicInteger((int) grant.count());
        this.explicitLeaseMs = watchdog ? 0 : leaseMs;
        this.acquiredNanos = sentNanos;
        this.leaseEndNanos = sentNanos + Duration.ofMillis(leaseMs).toNanos();
    }

    boolean watchdog() {
        return explicitLeaseMs == 0;
    }

    int count() {
        return count.get();
    }

    void reentered(long leaseMs, long sentNanos) {
        count.incrementAndGet();
        // The acquire script sets the TTL to this lease, even when it is shorter than the one before.
        leaseEndNanos = sentNanos + Duration.ofMillis(leaseMs).toNanos();
    }

    /** Drops one local hold; returns the holds left. */
    int exit() {
        return count.decrementAndGet();
    }

    /** Whether the hold is still valid: not lost, not released, lease not run out. */
    boolean isLive(long nowNanos) {
        return !released && lostReason.get() == null && nowNanos - leaseEndNanos < 0;
    }

    /** Marks the hold lost; true only for the first caller, so loss is reported once. */
    boolean markLost(String reason) {
        return lostReason.compareAndSet(null, reason);
    }

    String lostReason() {
        return lostReason.get();
    }

    Duration heldFor(long nowNanos) {
        return Duration.ofNanos(nowNanos - acquiredNanos);
    }
}
