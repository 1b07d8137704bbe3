package dev.distlock.spring.annotation;

/**
 * What a transaction begun inside a {@link DistributedLock} method does when, just before it commits, its
 * lock turns out lost (lease run out or lost, or the lock no longer this instance's in Redis).
 */
public enum OnLostBeforeCommit {

    /** As {@code distlock.transaction.on-lost-before-commit} says (ROLL_BACK unless set). */
    DEFAULT,

    /**
     * Roll the transaction back: the before-commit check throws
     * {@link dev.distlock.spring.LockLostBeforeCommitException}, naming the lock, to the method's caller.
     */
    ROLL_BACK,

    /**
     * Commit anyway, and report it: a WARN naming the lock and the
     * {@code distributed.lock.lost.before.commit} counter (outcome {@code committed}). For work whose writes
     * are fenced at the store, or that is safe to repeat.
     */
    COMMIT_AND_REPORT
}
