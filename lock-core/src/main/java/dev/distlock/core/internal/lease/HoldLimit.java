package dev.distlock.core.internal.lease;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockInfo;
import dev.distlock.core.internal.support.Events;
import java.time.Duration;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cap on how long the watchdog renews one hold ({@link LockInfo#maxHold()}: the client's
 * {@link LockClientOptions#maxHold()} or its view's), and the warning once a hold has run for the long-hold
 * fraction of it: the holder's thread and stack in one WARN, and listeners told, once per hold.
 */
final class HoldLimit {

    private static final Logger log = LoggerFactory.getLogger(HoldLimit.class);

    /** Frames of the holder's stack the warning shows. */
    private static final int FRAMES = 12;

    private final double warnAt;
    private final Events events;

    HoldLimit(LockClientOptions options, Events events) {
        this.warnAt = options.longHoldWarning();
        this.events = events;
    }

    private static long maxNanos(LeaseState hold) {
        Duration max = hold.info.maxHold();
        return max == null || !hold.capped() ? 0 : max.toNanos();
    }

    /**
     * Whether {@code hold} has reached the cap by {@code now} (the watchdog then stops renewing it and
     * reports it lost, with {@link #reason()}); warns once when it passed the long-hold fraction.
     */
    boolean reached(LeaseState hold, long now) {
        long maxNanos = maxNanos(hold);
        if (maxNanos == 0) {
            return false;
        }
        long held = now - hold.acquiredNanos;
        if (held >= maxNanos) {
            return true;
        }
        if (warnAt > 0 && held >= (long) (maxNanos * warnAt) && hold.markLongHold()) {
            Thread thread = hold.thread;
            log.warn(
                    "Lock '{}' has been held for {} ms, {}% of maxHold {} ms (owner {}, thread {}){}",
                    hold.info.key(),
                    held / 1_000_000,
                    Math.round(100.0 * held / maxNanos),
                    maxNanos / 1_000_000,
                    hold.owner,
                    thread == null ? "none: a handle" : thread.getName(),
                    thread == null ? "" : stack(thread));
            events.longHold(hold.info, Duration.ofNanos(held));
        }
        return false;
    }

    static String reason(LeaseState hold) {
        return "it was held for maxHold (" + maxNanos(hold) / 1_000_000 + " ms): the watchdog stopped renewing it";
    }

    private static String stack(Thread thread) {
        return Arrays.stream(thread.getStackTrace())
                .limit(FRAMES)
                .map(frame -> "\n\tat " + frame)
                .collect(Collectors.joining());
    }
}
