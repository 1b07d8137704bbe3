package dev.distlock.spring.transaction;

import dev.distlock.spring.execution.LockRequest;

/** Where a lock found lost before a commit is counted (Micrometer, when present). Infrastructure of the starter, not API. */
@FunctionalInterface
public interface LostBeforeCommitReport {

    /** Counts nothing: no Micrometer on the class path, or metrics switched off. */
    LostBeforeCommitReport NONE = (request, committed) -> {};

    /**
     * The lock of {@code request} was found lost just before a transaction committed.
     *
     * @param committed whether the transaction committed anyway (COMMIT_AND_REPORT) rather than rolled back
     */
    void lost(LockRequest request, boolean committed);
}
