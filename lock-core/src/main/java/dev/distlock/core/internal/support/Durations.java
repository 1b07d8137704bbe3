package dev.distlock.core.internal.support;

import dev.distlock.core.RedisLock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/** Argument checks for durations, with messages that name the argument and the limit. */
public final class Durations {

    /** The longest lease accepted ({@link RedisLock#MAX_DURATION}). */
    public static final Duration MAX_LEASE = RedisLock.MAX_DURATION;

    /**
     * The longest finite wait ({@link RedisLock#MAX_DURATION}); a longer one waits for ever, as with
     * {@code java.util.concurrent} locks, which saturate {@code tryLock(Long.MAX_VALUE, ...)}.
     */
    public static final Duration MAX_WAIT = RedisLock.MAX_DURATION;

    /**
     * How far ahead of its start a wait for ever has its deadline, in nanoseconds: far enough never to
     * come, near enough that {@code deadline - System.nanoTime()} cannot overflow.
     */
    public static final long FOREVER_NANOS = Long.MAX_VALUE / 2;

    private Durations() {}

    public static Duration requireBetween(Duration value, Duration min, Duration max, String what) {
        return requireBetween(value, min, max, () -> what);
    }

    /** As {@link #requireBetween(Duration, Duration, Duration, String)}, naming the argument only when it is bad. */
    public static Duration requireBetween(Duration value, Duration min, Duration max, Supplier<String> what) {
        Objects.requireNonNull(value, () -> what.get() + " must not be null");
        if (value.compareTo(min) < 0) {
            throw new IllegalArgumentException(
                    what.get() + " must be at least " + min.toMillis() + " ms, got " + value);
        }
        if (value.compareTo(max) > 0) {
            throw new IllegalArgumentException(what.get() + " must be at most " + describe(max) + ", got " + value);
        }
        return value;
    }

    /**
     * A wait a caller gave: not negative; {@code null} (for ever) when it is longer than {@link #MAX_WAIT},
     * such as {@code Duration.ofSeconds(Long.MAX_VALUE)}, which callers pass to mean "wait for ever".
     */
    public static @Nullable Duration waitOrForever(Duration value, String what) {
        Objects.requireNonNull(value, () -> what + " must not be null");
        if (value.isNegative()) {
            throw new IllegalArgumentException(what + " must not be negative, got " + value);
        }
        return value.compareTo(MAX_WAIT) > 0 ? null : value;
    }

    /** As {@link #waitOrForever(Duration, String)} for the {@link java.util.concurrent.locks.Lock} overload; a negative time is zero. */
    public static @Nullable Duration waitOrForever(long time, TimeUnit unit) {
        long nanos = unit.toNanos(time); // saturates at Long.MAX_VALUE
        return nanos > MAX_WAIT.toNanos() ? null : Duration.ofNanos(Math.max(0, nanos));
    }

    /**
     * The deadline (System.nanoTime) of a wait that started at {@code startNanos}: {@code null} or over
     * {@link #MAX_WAIT} is for ever ({@link #FOREVER_NANOS} ahead).
     */
    public static long deadline(long startNanos, @Nullable Duration wait) {
        return wait == null || wait.compareTo(MAX_WAIT) > 0 ? startNanos + FOREVER_NANOS : startNanos + wait.toNanos();
    }

    /** A fraction from 0 to below 1. */
    public static double requireFraction(double value, String what) {
        if (!(value >= 0 && value < 1)) {
            throw new IllegalArgumentException(
                    what + " must be a fraction from 0 to below 1, such as 0.8, got " + value);
        }
        return value;
    }

    /** The shortest fixed lease accepted ({@link RedisLock#MIN_LEASE}). */
    static final Duration MIN_LEASE = RedisLock.MIN_LEASE;

    /** A lease: {@code null} means the watchdog; otherwise {@link #MIN_LEASE} to {@link #MAX_LEASE}. */
    public static Duration requireLease(Duration lease, String lockName) {
        if (lease == null) {
            return null;
        }
        // compared as Durations, not as millis: toMillis() of a huge lease overflows
        if (lease.compareTo(MIN_LEASE) < 0) {
            throw new IllegalArgumentException("lease of lock '" + lockName + "' must be at least "
                    + MIN_LEASE.toMillis() + " ms, got " + lease
                    + ": a shorter lease ends before Redis's grant reaches the client (leave it out to use the"
                    + " watchdog)");
        }
        if (lease.compareTo(MAX_LEASE) > 0) {
            throw new IllegalArgumentException(
                    "lease of lock '" + lockName + "' must be at most " + describe(MAX_LEASE) + ", got " + lease
                            + " (leave it out to use the watchdog, which renews a short lease while the holder runs)");
        }
        return lease;
    }

    /** A lease the caller must give (a method that has a lease-less twin for the watchdog). */
    public static Duration requireFixedLease(Duration lease, String lockName) {
        Objects.requireNonNull(
                lease, () -> "lease of lock '" + lockName + "' must not be null: call lock() for the watchdog lease");
        return requireLease(lease, lockName);
    }

    private static String describe(Duration d) {
        return d.toDays() > 0 && d.equals(Duration.ofDays(d.toDays())) ? d.toDays() + " days" : d.toMillis() + " ms";
    }
}
