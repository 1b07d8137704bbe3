package dev.distlock.spring.transaction;

import dev.distlock.spring.LockLostBeforeCommitException;
import dev.distlock.spring.annotation.OnLostBeforeCommit;
import dev.distlock.spring.execution.ActiveHolds;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.transaction.support.TransactionSynchronization;

/**
 * One transaction's check before it commits: every hold whose work was running when the transaction began
 * must still be held. A lost one rolls the transaction back (the exception thrown here makes the
 * transaction manager roll back and rethrow it), or is reported while the transaction commits.
 */
final class CommitCheck implements TransactionSynchronization {

    private static final Logger log = LoggerFactory.getLogger(CommitCheck.class);

    private final List<ActiveHolds.Entry> holds;
    private final HoldConfirmation confirmation;
    private final OnLostBeforeCommit byDefault;
    private final LostBeforeCommitReport report;

    CommitCheck(
            List<ActiveHolds.Entry> holds,
            HoldConfirmation confirmation,
            OnLostBeforeCommit byDefault,
            LostBeforeCommitReport report) {
        this.holds = holds;
        this.confirmation = confirmation;
        this.byDefault = byDefault;
        this.report = report;
    }

    /** Last of the before-commit steps, so that the check sits as close to the commit as it can. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void beforeCommit(boolean readOnly) {
        for (ActiveHolds.Entry hold : holds) {
            String reason = confirmation.lostReason(hold);
            if (reason == null) {
                continue;
            }
            OnLostBeforeCommit mode = hold.request().onLostBeforeCommit();
            if (mode == OnLostBeforeCommit.DEFAULT) {
                mode = byDefault;
            }
            if (mode == OnLostBeforeCommit.COMMIT_AND_REPORT) {
                report.lost(hold.request(), true);
                log.warn(
                        "Lock {} ({}) was lost before the transaction committed: {}; committing anyway"
                                + " (on-lost-before-commit = COMMIT_AND_REPORT)",
                        String.join(", ", hold.request().keys()),
                        hold.request().caller(),
                        reason);
                continue;
            }
            report.lost(hold.request(), false);
            throw new LockLostBeforeCommitException(
                    List.copyOf(hold.fencingTokens().keySet()), hold.request().label(), reason, null);
        }
    }
}
