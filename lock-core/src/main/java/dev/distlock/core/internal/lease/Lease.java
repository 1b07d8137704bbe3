package dev.distlock.core.internal.lease;

import dev.distlock.core.internal.support.Durations;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A hold's lease as a value: how long Redis keeps the lock without a renewal, and whether the
 * watchdog renews it (the caller gave no lease) or it is fixed (the caller gave one).
 *
 * @param millis the lease in Redis, in ms (at most {@link Durations#MAX_LEASE})
 * @param watchdog whether the watchdog renews it while held
 */
public record Lease(long millis, boolean watchdog) {

    /** {@code explicit} when given, else a watchdog lease of {@code watchdogMs}. */
    public static Lease of(@Nullable Duration explicit, long watchdogMs) {
        return explicit == null ? new Lease(watchdogMs, true) : new Lease(explicit.toMillis(), false);
    }

    public long nanos() {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    /** How loss messages name it, e.g. {@code explicit lease of 500 ms}. */
    public String describe() {
        return (watchdog ? "watchdog lease of " : "explicit lease of ") + millis + " ms";
    }
}
