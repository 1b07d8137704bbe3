package dev.distlock.core.internal.lock;

import dev.distlock.core.LockInfo;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.support.Durations;
import java.time.Duration;

/** The checks and messages of hold-at-least ({@link RedisLock#unlock(Duration)}), written once. */
public final class HoldAtLeast {

    private HoldAtLeast() {}

    /** A hold-at-least: not null, not negative, at most the longest lease. */
    public static Duration require(Duration holdAtLeast, String key) {
        // checked on every release: the argument's name is spelled out only for a bad value
        return Durations.requireBetween(
                holdAtLeast, Duration.ZERO, Durations.MAX_LEASE, () -> "holdAtLeast of lock '" + key + "'");
    }

    public static UnsupportedOperationException unsupported(LockInfo info) {
        return new UnsupportedOperationException("Lock '" + info.key() + "' (" + info.type()
                + ") cannot stay taken after unlock: holdAtLeast is supported by reentrant locks and multi-locks"
                + " of them; use getLock(name) for a job that must not run twice, or unlock() without holdAtLeast");
    }
}
