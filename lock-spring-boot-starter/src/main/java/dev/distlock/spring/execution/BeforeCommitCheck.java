package dev.distlock.spring.execution;

import java.util.List;

/**
 * The check a transaction makes just before it commits, that the locks whose work it runs in are still held:
 * the same for Spring's imperative transactions and for reactive ones (the starter's transaction
 * configuration provides it; locks hand it to their reactive publishers). Infrastructure of the starter, not API.
 */
@FunctionalInterface
public interface BeforeCommitCheck {

    /**
     * Checks {@code holds}, innermost first, just before a commit: throws
     * {@link dev.distlock.spring.LockLostBeforeCommitException} when one is lost and the transaction must roll
     * back, reports it when the transaction commits anyway. May ask Redis, so it may block.
     */
    void check(List<ActiveHolds.Entry> holds);
}
