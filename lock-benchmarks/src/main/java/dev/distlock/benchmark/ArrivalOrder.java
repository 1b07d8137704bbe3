package dev.distlock.benchmark;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Checks that a fair lock grants in arrival order: a grant is out of order when another worker of
 * the same key had been waiting since clearly before the new holder asked. "Clearly" is the slack:
 * a worker stamps its arrival just before calling {@code lock()}, and its request reaches Redis a
 * little later (a round trip, a time slice of a busy machine), so two workers arriving within the
 * slack may queue either way without breaking fairness.
 *
 * <p>When the whole JVM stood still between a worker's stamp and the grant that passed it, the stamp
 * says nothing about when its request went out: a worker that asked after the stall may have sent its
 * request first, and the lock granted in the order requests arrived. Such a grant is
 * {@link Verdict#UNDECIDED} when the stall covers the passed worker's lead beyond the slack, and is
 * reported apart from grants out of order.
 */
final class ArrivalOrder {

    /** What one grant did to arrival order. */
    enum Verdict {
        IN_ORDER,
        OUT_OF_ORDER,
        /** It passed an earlier worker only by about as long as the JVM stood still meanwhile. */
        UNDECIDED
    }

    /** How long the JVM stood still within a span of {@code System.nanoTime} (see {@link Stalls}). */
    @FunctionalInterface
    interface StallClock {
        StallClock NONE = (from, to) -> 0;

        long stalledNanos(long from, long to);
    }

    private static final long NOT_WAITING = Long.MIN_VALUE;

    private final AtomicLongArray askedAt;
    private final long slackNanos;
    private final StallClock stalls;

    ArrivalOrder(int workers, Duration slack) {
        this(workers, slack, StallClock.NONE);
    }

    ArrivalOrder(int workers, Duration slack, StallClock stalls) {
        this.askedAt = new AtomicLongArray(workers);
        this.slackNanos = slack.toNanos();
        this.stalls = stalls;
        for (int i = 0; i < workers; i++) {
            askedAt.set(i, NOT_WAITING);
        }
    }

    /** {@code worker} is about to ask for the lock, at {@code now}. */
    void asking(int worker, long now) {
        askedAt.set(worker, now);
    }

    /** {@code worker} was granted the lock at {@code now}; what that did to arrival order. */
    Verdict granted(int worker, long now) {
        long mine = askedAt.get(worker);
        askedAt.set(worker, NOT_WAITING);
        Verdict verdict = Verdict.IN_ORDER;
        for (int other = 0; other < askedAt.length(); other++) {
            long theirs = askedAt.get(other);
            if (other == worker || theirs == NOT_WAITING || mine - theirs <= slackNanos) {
                continue;
            }
            if (mine - theirs - stalls.stalledNanos(theirs, now) > slackNanos) {
                return Verdict.OUT_OF_ORDER;
            }
            verdict = Verdict.UNDECIDED;
        }
        return verdict;
    }
}
