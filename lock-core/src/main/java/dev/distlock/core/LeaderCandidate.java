package dev.distlock.core;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * Stands for one instance in the election of a role's leader: at most one candidate of a role leads at
 * a time, across every process that uses the same Redis. From {@link LockClient#leader(String, LeaderListener)}.
 *
 * <p>Leadership is a hold of the role's lock ({@code leader:<role>}) on the client's watchdog lease: the
 * watchdog keeps it while this process runs, and a leader that dies is replaced within one lease. The
 * fencing token of the hold is the leadership's <em>term</em>: every leadership of a role has a larger
 * term than the one before, so a store that keeps the highest term it has seen refuses the writes of a
 * leader that was deposed while it was paused. Candidates that do not lead wait for the lock without
 * polling (pub/sub), and compete again, with a bounded back-off, while Redis cannot be reached.
 *
 * <p>A leader gives up its leadership, and is told so ({@link LeaderListener#revoked}), when no renewal
 * was confirmed for all but one renewal period (a third of the lease) of its lease: when Redis is gone or
 * the process was paused, it steps down about one renewal period before the lock can expire in Redis,
 * hence before another candidate can be granted it. {@link #isLeader()} reads the same local lease clock
 * on every call, so a process that resumes from a pause longer than that sees {@code false} before it
 * can act on its old term.
 *
 * <pre>{@code
 * try (LeaderCandidate candidate = client.leader("cache-warmer")) {
 *     candidate.start();
 *     while (running) {
 *         OptionalLong term = candidate.term();
 *         if (term.isPresent()) {
 *             warmCache(term.getAsLong()); // stamp writes with the term
 *         }
 *         Thread.sleep(1000);
 *     }
 * }
 * }</pre>
 */
public interface LeaderCandidate extends AutoCloseable {

    /**
     * How long a candidate that {@link #yieldLeadership() yielded} stays out of the election: long enough
     * for a waiting candidate of another process to be woken and granted the lock, short enough that the
     * role is led again soon when no other candidate runs.
     */
    Duration YIELD_BACK_OFF = Duration.ofSeconds(1);

    /** The role this candidate stands for. */
    String role();

    /**
     * Starts competing for the role; returns at once (the leadership, if won, is reported to the
     * listener). Calling it again does nothing.
     *
     * @throws IllegalStateException when the candidate was closed: create a new one
     */
    void start();

    /**
     * Whether this candidate leads its role now: it holds the role's lock and, by its local lease clock,
     * more than one renewal period of the lease is left. Asks nothing of Redis. It turns true as the grant
     * arrives, a moment before the listener's {@code granted} call runs on the candidate's thread.
     */
    boolean isLeader();

    /** The term of the current leadership while {@link #isLeader()}, else empty. */
    OptionalLong term();

    /**
     * Hands the leadership on at once: revokes it (the listener is told, reason {@code yielded}), releases
     * the role's lock, which wakes a waiting candidate, and stays out of the election for
     * {@link #YIELD_BACK_OFF} before competing again.
     *
     * @return whether this candidate was leader
     */
    boolean yieldLeadership();

    /**
     * Stops competing and gives up a leadership held (the listener is told, reason {@code closed}),
     * waiting at most the client's operation timeout for Redis to confirm the release. Calling it again
     * does nothing.
     */
    @Override
    void close();
}
