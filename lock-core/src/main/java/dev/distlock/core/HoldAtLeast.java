package dev.distlock.core;

import java.time.Duration;

/** The checks and messages of hold-at-least ({@link RedisLock#unlock(Duration)}), written once. */
final class HoldAtLeast {

    private HoldAtLeast() {}

    /** A hold-at-least: not null, not negative, at most the longest lease. */
    static Duration require(Duration holdAtLeast, String key) {
        // checked on every release: the argument's name is spelled out only for a bad value
        return Durations.requireBetween(
                holdAtLeast, Duration.ZERO, Durations.MAX_LEASE, () -> "holdAtLeast of lock '" + key + "'");
    }

    static UnsupportedOperationException unsupported(LockInfo info) {
        return new UnsupportedOperationException("Lock '" + info.key() + "' (" + info.type()
                + ") cannot stay taken after unlock: holdAtLeast is supported by reentrant locks and multi-locks"
                + " of them; use getLock(name) for a job that must not run twice, or unlock() without holdAtLeast");
    }
}
