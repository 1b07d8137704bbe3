package dev.distlock.core;

import java.time.Duration;
import java.util.Objects;

/** Argument checks for durations, with messages that name the argument. */
final class Durations {

    private Durations() {
    }

    static Duration requireAtLeast(Duration value, Duration min, String what) {
        Objects.requireNonNull(value, () -> what + " must not be null");
        if (value.compareTo(min) < 0) {
            throw new IllegalArgumentException(what + " must be at least " + min.toMillis() + " ms, got " + value);
        }
        return value;
    }

    static Duration requireNonNegative(Duration value, String what) {
        Objects.requireNonNull(value, () -> what + " must not be null");
        if (value.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, got " + value);
        }
        return value;
    }

    /** A lease: {@code null} means the watchdog; otherwise at least one millisecond. */
    static Duration requireLease(Duration lease, String lockName) {
        if (lease != null && lease.toMillis() < 1) {
            throw new IllegalArgumentException("lease of lock '" + lockName + "' must be at least 1 ms, got " + lease
                    + " (leave it out to use the watchdog)");
        }
        return lease;
    }
}
