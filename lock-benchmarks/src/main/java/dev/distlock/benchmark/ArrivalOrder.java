package dev.distlock.benchmark;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Checks that a fair lock grants in arrival order: a grant is out of order when another worker of
 * the same key had been waiting since clearly before the new holder asked. "Clearly" is the slack:
 * a worker stamps its arrival just before calling {@code lock()}, and its request reaches Redis a
 * little later (a round trip, a time slice of a busy machine), so two workers arriving within the
 * slack may queue either way without breaking fairness.
 */
final class ArrivalOrder {

    private static final long NOT_WAITING = Long.MIN_VALUE;

    private final AtomicLongArray askedAt;
    private final long slackNanos;

    ArrivalOrder(int workers, Duration slack) {
        this.askedAt = new AtomicLongArray(workers);
        this.slackNanos = slack.toNanos();
        for (int i = 0; i < workers; i++) {
            askedAt.set(i, NOT_WAITING);
        }
    }

    /** {@code worker} is about to ask for the lock, at {@code now}. */
    void asking(int worker, long now) {
        askedAt.set(worker, now);
    }

    /** {@code worker} was granted the lock; whether that kept arrival order. */
    boolean granted(int worker) {
        long mine = askedAt.get(worker);
        askedAt.set(worker, NOT_WAITING);
        for (int other = 0; other < askedAt.length(); other++) {
            long theirs = askedAt.get(other);
            if (other != worker && theirs != NOT_WAITING && mine - theirs > slackNanos) {
                return false;
            }
        }
        return true;
    }
}
