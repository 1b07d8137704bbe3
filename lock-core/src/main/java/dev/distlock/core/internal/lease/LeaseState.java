package dev.distlock.core.internal.lease;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockInfo;
import dev.distlock.core.internal.engine.Hold;
import dev.distlock.core.internal.redlock.RedLockHold;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * What a client knows of one hold's lease, for a plain Redis hold ({@link Hold}) and a RedLock hold
 * ({@link RedLockHold}) alike: count, fencing token, grant, lease and until when it is valid, and
 * whether it was released or lost. {@link LeaseKeeper} renews it and reports its loss.
 */
public abstract class LeaseState {

    public final LockInfo info;
    public final String owner;
    public final long token;
    /** The id of the request that granted this hold in Redis; renewals and releases name it. */
    public final String grantId;
    /** When the granting request was sent (System.nanoTime). */
    public final long acquiredNanos;
    /** The thread that owns the hold, interrupted on loss when the client asks for it; {@code null} for a handle's hold. */
    public final @Nullable Thread thread;
    /** Completes with the reason when the hold is lost while held (never when it is released first). */
    public final CompletableFuture<String> lost = new CompletableFuture<>();

    private final AtomicInteger count;
    private final AtomicReference<String> lostReason = new AtomicReference<>();
    private volatile Lease lease;
    /**
     * Until when the hold is valid as far as this client knows, counted from when the request was
     * sent (never from the reply, so a late reply cannot make a hold look longer than Redis keeps it).
     */
    public volatile long validUntilNanos;
    /**
     * When the request that last set the lock's TTL to this hold's lease was sent: the grant, or a
     * re-entry with a lease of its own. A renewal sent before it must not move {@link #validUntilNanos}:
     * Redis may have run that renewal first and the re-entry's shorter TTL after it.
     */
    volatile long leaseSetNanos;

    public volatile boolean released;
    /** When a renewal was last sent (or the grant asked for): the watchdog renews a period after it. */
    public volatile long renewalSentNanos;
    /** The timer that reports a fixed lease running out while held; {@code null} for watchdog leases. */
    volatile Future<?> leaseTimer;

    public LeaseState(
            LockInfo info,
            String owner,
            @Nullable Thread thread,
            long token,
            String grantId,
            int count,
            Lease lease,
            long sentNanos,
            long validUntilNanos) {
        this.info = info;
        this.thread = thread;
        this.owner = owner;
        this.token = token;
        this.grantId = grantId;
        this.count = new AtomicInteger(count);
        this.lease = lease;
        this.acquiredNanos = sentNanos;
        this.validUntilNanos = validUntilNanos;
        this.leaseSetNanos = sentNanos;
        this.renewalSentNanos = sentNanos;
    }

    public Lease lease() {
        return lease;
    }

    public boolean watchdog() {
        return lease.watchdog();
    }

    /** Whether {@link dev.distlock.core.LockClientOptions#maxHold()} applies to this hold (all but leaderships). */
    public boolean capped() {
        return true;
    }

    public int count() {
        return count.get();
    }

    /**
     * One more hold. The script set the lock's TTL to the lease the re-entry asked for, so that is
     * now the lease's length and end; who keeps it (watchdog or not) stays as the first hold chose.
     */
    public void reentered(long leaseMs, long sentNanos) {
        reenter();
        lease = new Lease(leaseMs, lease.watchdog());
        leaseSetNanos = sentNanos;
        validUntilNanos = sentNanos + TimeUnit.MILLISECONDS.toNanos(leaseMs);
    }

    /** One more hold on the same lease (RedLock re-entry, which does not touch the nodes). */
    public void reenter() {
        count.incrementAndGet();
    }

    /** Drops one local hold; returns the holds left. */
    public int exit() {
        return count.decrementAndGet();
    }

    /** Whether the hold is still valid: not lost, not released, lease not run out. */
    public boolean isLive(long nowNanos) {
        return !released && !runOut(nowNanos);
    }

    /**
     * Whether the hold was lost or its lease ran out, released or not. Another thread asking whether a
     * hold was abandoned (not released, yet run out) must ask this, not {@code !isLive}: that reads
     * {@link #released} again, and a release in between would make a live hold look run out.
     */
    public boolean runOut(long nowNanos) {
        return lostReason.get() != null || nowNanos - validUntilNanos >= 0;
    }

    /** Whether the long-hold warning was given ({@link HoldLimit}); once per hold. */
    private final AtomicBoolean longHold = new AtomicBoolean();

    /** Marks the hold as warned about; true only for the first caller. */
    boolean markLongHold() {
        return longHold.compareAndSet(false, true);
    }

    /** Marks the hold lost; true only for the first caller, so loss is reported once. */
    boolean markLost(String reason) {
        if (lostReason.compareAndSet(null, reason)) {
            lost.complete(reason);
            return true;
        }
        return false;
    }

    public String lostReason() {
        return lostReason.get();
    }

    public Duration heldFor(long nowNanos) {
        return Duration.ofNanos(nowNanos - acquiredNanos);
    }

    /** The holds among {@code holds} that are still valid now. */
    public static int live(Collection<? extends LeaseState> holds) {
        long now = System.nanoTime();
        return (int) holds.stream().filter(h -> h.isLive(now)).count();
    }

    /** The valid ones of {@code holds}, as snapshots, oldest first. */
    public static List<HeldLock> snapshot(Collection<? extends LeaseState> holds) {
        long now = System.nanoTime();
        Instant wallNow = Instant.now();
        return holds.stream()
                .filter(h -> h.isLive(now))
                .map(h -> HeldLock.of(h, now, wallNow))
                .sorted(Comparator.comparing(HeldLock::since))
                .toList();
    }
}
