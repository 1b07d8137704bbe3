package dev.distlock.core;

import dev.distlock.core.internal.lease.LeaseState;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One hold of a client at one moment, as {@link LockClient#heldLocks()} lists them for operators
 * (dashboards, the starter's Actuator endpoint). What the client knows, without asking Redis.
 *
 * @param lock the lock: key, name and type
 * @param ownerThread the name of the thread that holds it; {@code null} for a {@link LockHandle}'s hold, which no thread owns
 * @param since when it was granted (when the granting request was sent)
 * @param fencingToken the hold's fencing token
 * @param holdCount how many times its owner holds it (re-entry)
 * @param watchdog whether the lease is the watchdog's (renewed while held) rather than fixed
 * @param validFor how long the lease is still valid as far as the client knows (from its last confirmed grant or renewal)
 */
public record HeldLock(
        LockInfo lock,
        @Nullable String ownerThread,
        Instant since,
        long fencingToken,
        int holdCount,
        boolean watchdog,
        Duration validFor) {

    /** The snapshot of {@code hold} at {@code nowNanos} ({@code now} the same moment on the wall clock). */
    public static HeldLock of(LeaseState hold, long nowNanos, Instant now) {
        Thread thread = hold.thread;
        return new HeldLock(
                hold.info,
                thread == null ? null : thread.getName(),
                now.minusNanos(nowNanos - hold.acquiredNanos),
                hold.token,
                hold.count(),
                hold.watchdog(),
                Duration.ofNanos(Math.max(0, hold.validUntilNanos - nowNanos)));
    }
}
