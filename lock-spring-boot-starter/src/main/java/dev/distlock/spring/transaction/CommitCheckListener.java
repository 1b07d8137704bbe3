package dev.distlock.spring.transaction;

import dev.distlock.spring.annotation.OnLostBeforeCommit;
import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.redis.LockHashReader;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Adds the before-commit check to each new transaction that begins while a lock's work runs on the thread
 * (the lock wraps {@code @Transactional}, so that is where transactions begin). A transaction begun
 * outside every lock is left alone: it commits after the lock's release, which no check can repair (see
 * distlock.aop.order). Infrastructure of the starter, not API.
 */
public final class CommitCheckListener implements TransactionExecutionListener {

    private final ActiveHolds holds;
    private final HoldConfirmation confirmation;
    private final OnLostBeforeCommit byDefault;
    private final LostBeforeCommitReport report;

    /**
     * @param reader the application's Redis, or {@code null} to check on the lease clock only (local mode)
     * @param clientId the lock client's id, the first part of its owner ids in Redis
     * @param byDefault what to do for calls that leave it to the property (ROLL_BACK or COMMIT_AND_REPORT)
     */
    public CommitCheckListener(
            ActiveHolds holds,
            @Nullable LockHashReader reader,
            Supplier<String> clientId,
            OnLostBeforeCommit byDefault,
            LostBeforeCommitReport report) {
        this.holds = holds;
        this.confirmation = new HoldConfirmation(holds, reader, clientId);
        this.byDefault = byDefault == OnLostBeforeCommit.DEFAULT ? OnLostBeforeCommit.ROLL_BACK : byDefault;
        this.report = report;
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
            TransactionSynchronizationManager.registerSynchronization(
                    new CommitCheck(running, confirmation, byDefault, report));
        }
    }
}
