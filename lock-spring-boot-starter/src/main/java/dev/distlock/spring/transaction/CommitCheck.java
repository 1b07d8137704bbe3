package dev.distlock.spring.transaction;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.BeforeCommitCheck;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * One transaction's check before it commits: every hold whose work was running when the transaction began
 * must still be held (see {@link CommitChecks}; the exception it throws here makes the transaction manager
 * roll back and rethrow it).
 */
final class CommitCheck implements TransactionSynchronization {

    private final List<ActiveHolds.Entry> holds;
    private final BeforeCommitCheck check;

    CommitCheck(List<ActiveHolds.Entry> holds, BeforeCommitCheck check) {
        this.holds = holds;
        this.check = check;
    }

    /** Last of the before-commit steps, so that the check sits as close to the commit as it can. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void beforeCommit(boolean readOnly) {
        check.check(holds);
    }
}
