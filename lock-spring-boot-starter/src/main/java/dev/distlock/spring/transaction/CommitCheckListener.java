package dev.distlock.spring.transaction;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.BeforeCommitCheck;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Adds the before-commit check to each new transaction that begins while a lock's work runs on the thread
 * (the lock wraps {@code @Transactional}, so that is where transactions begin). A transaction begun
 * outside every lock is left alone: it commits after the lock's release, which no check can repair (see
 * distlock.aop.order). Reactive transactions, which begin on no particular thread, are not seen here: their
 * publisher asks for the check ({@code ReactiveLockContext.checkBeforeCommit()}). Infrastructure of the
 * starter, not API.
 */
public final class CommitCheckListener implements TransactionExecutionListener {

    private final ActiveHolds holds;
    private final BeforeCommitCheck check;

    public CommitCheckListener(ActiveHolds holds, BeforeCommitCheck check) {
        this.holds = holds;
        this.check = check;
    }

    @Override
    public void afterBegin(TransactionExecution transaction, @Nullable Throwable beginFailure) {
        if (beginFailure != null
                || !transaction.isNewTransaction()
                || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        List<ActiveHolds.Entry> running = holds.onThisThread();
        if (!running.isEmpty()) {
            TransactionSynchronizationManager.registerSynchronization(new CommitCheck(running, check));
        }
    }
}
