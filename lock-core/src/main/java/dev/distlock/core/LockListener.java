package dev.distlock.core;

import java.time.Duration;

/**
 * Receives lock events, for metrics and alerts. Called on the thread that caused the event (the
 * watchdog thread for renewals and lease loss): implementations must be fast and must not block.
 * An exception thrown by a listener is logged and otherwise ignored.
 */
public interface LockListener {

    /** An attempt to take a lock ended; re-entry by the holder is not reported. */
    default void onAcquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {}

    /** The last hold of a lock was released after being held for {@code held}. */
    default void onRelease(LockInfo lock, Duration held) {}

    /** The watchdog tried to extend a lease. */
    default void onRenewal(LockInfo lock, RenewalOutcome outcome) {}

    /**
     * A hold was lost while its owner still held it: the lease ran out, renewal found the lock gone
     * or owned by another, or Redis stayed unreachable past the lease. Reported once per hold.
     */
    default void onLeaseLost(LockInfo lock, String reason) {}

    /**
     * A hold has been held for the long-hold fraction of {@link LockClientOptions#maxHold()}; called once
     * per hold, on the client's timer thread.
     */
    default void onLongHold(LockInfo lock, Duration heldFor) {}

    /** How an acquisition attempt ended. */
    enum AcquireOutcome {
        /** The lock was granted. */
        ACQUIRED,
        /** The wait time ran out while another owner held the lock. */
        TIMEOUT,
        /** Redis did not answer within the bound (down, paused, unreachable); see {@link LockUnavailableException}. */
        UNAVAILABLE,
        /** Redis answered with an error, or the waiting thread was interrupted. */
        ERROR
    }

    /** How a renewal ended. */
    enum RenewalOutcome {
        /** The lease was extended. */
        RENEWED,
        /** The lock was gone or owned by another: the hold is lost. */
        LOST,
        /** Redis did not answer; the renewal is retried while the lease lasts. */
        ERROR
    }
}
