package dev.distlock.spring.metrics;

/** Names and tags of the Micrometer meters recorded for distributed locks. */
public final class LockMetrics {

    /**
     * Timer of acquisition attempts; tags {@link #NAME}, {@link #TYPE}, {@link #OUTCOME} (acquired, timeout,
     * unavailable, error, cancelled), {@link #ERROR_TAG}. One per {@code @DistributedLock} call or {@code LockTemplate} call, also for
     * a multi-key lock; holds taken directly through {@code LockClient} are counted per lock.
     */
    public static final String ACQUIRE = "distributed.lock.acquire";
    /** Timer of how long locks were held; tags {@link #NAME}, {@link #TYPE}, {@link #ERROR_TAG} (LockLeaseExpiredException when lost). */
    public static final String HELD = "distributed.lock.held";
    /** Gauge of locks this instance holds now. */
    public static final String ACTIVE = "distributed.lock.active";
    /** Counter of watchdog renewals; tag {@link #OUTCOME} (renewed, lost, error). */
    public static final String RENEWALS = "distributed.lock.renewals";
    /** Counter of holds lost while held (lease ran out, renewal failed); tags {@link #NAME}, {@link #TYPE}. */
    public static final String LOST = "distributed.lock.lost";
    /** Gauge of the semaphore permits this instance holds now (each grant counts once). */
    public static final String PERMITS = "distributed.lock.permits.held";
    /** Counter of holds that ran past the long-hold fraction of distlock.max-hold (those past it count as lost). */
    public static final String LONG_HOLDS = "distributed.lock.long.holds";
    /** Counter of leaderships this instance was granted; tag {@link #ROLE}. */
    public static final String LEADER_GRANTED = "distributed.lock.leader.granted";
    /** Counter of leaderships of this instance that ended (yielded, stopped, lost); tag {@link #ROLE}. */
    public static final String LEADER_REVOKED = "distributed.lock.leader.revoked";
    /** The leader role, as {@code distlock.leader.roles} or a {@code LeaderElection} bean names it. */
    public static final String ROLE = "role";
    /**
     * Counter of transactions begun inside a lock's work whose lock was found lost just before they committed;
     * tags {@link #NAME}, {@link #TYPE}, {@link #OUTCOME} ({@value #ROLLED_BACK}, or {@value #COMMITTED} with
     * on-lost-before-commit = COMMIT_AND_REPORT).
     */
    public static final String LOST_BEFORE_COMMIT = "distributed.lock.lost.before.commit";

    /**
     * The lock's declared name, never the resolved key, for {@code @DistributedLock} and {@code LockTemplate}; a lock
     * taken directly through {@code LockClient} has the name it was given, else its key.
     */
    public static final String NAME = "name";
    /** The lock type as the annotation spells it: REENTRANT, FAIR, READ, WRITE, or REDLOCK for redlock = true. */
    public static final String TYPE = "type";
    /** How an attempt ended. */
    public static final String OUTCOME = "outcome";
    /**
     * The exception's simple name, or {@value #NO_ERROR}; added to the acquire and held timers by
     * Micrometer's meter observation handler. Locks used directly report no exception to their listeners:
     * theirs is LockUnavailableException for outcome unavailable and LockException for error.
     */
    public static final String ERROR_TAG = "error";
    /** The {@link #ERROR_TAG} of calls that ended without an exception. */
    public static final String NO_ERROR = "none";

    /** Outcome: the lock was granted. */
    public static final String ACQUIRED = "acquired";
    /** Outcome: the wait time ran out while the lock was busy. */
    public static final String TIMEOUT = "timeout";
    /** Outcome: Redis did not answer in time. */
    public static final String UNAVAILABLE = "unavailable";
    /** Outcome: Redis answered with an error, or the waiting thread was interrupted. */
    public static final String ERROR = "error";
    /** Outcome of {@link #LOST_BEFORE_COMMIT}: the transaction was rolled back. */
    public static final String ROLLED_BACK = "rolled_back";
    /** Outcome of {@link #LOST_BEFORE_COMMIT}: the transaction committed anyway, and was reported. */
    public static final String COMMITTED = "committed";
    /** Outcome: an async call was cancelled (its future cancelled, its subscription disposed) while it waited. */
    public static final String CANCELLED = "cancelled";

    private LockMetrics() {}
}
