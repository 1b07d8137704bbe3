package dev.distlock.spring.transaction;

import dev.distlock.spring.LockLostBeforeCommitException;
import dev.distlock.spring.annotation.OnLostBeforeCommit;
import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.BeforeCommitCheck;
import dev.distlock.spring.redis.LockHashReader;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one check before a commit, for imperative and reactive transactions alike: every hold must still be
 * held (see {@link HoldConfirmation}). A lost one fails the commit with LockLostBeforeCommitException, so the
 * transaction manager rolls back and passes it on, or is reported while the transaction commits, as the
 * lock's {@code onLostBeforeCommit} (or the property) says. Infrastructure of the starter, not API.
 */
public final class CommitChecks implements BeforeCommitCheck {

    private static final Logger log = LoggerFactory.getLogger(CommitChecks.class);

    private final HoldConfirmation confirmation;
    private final OnLostBeforeCommit byDefault;
    private final LostBeforeCommitReport report;

    /**
     * @param reader the application's Redis, or {@code null} to check on the lease clock only (local mode)
     * @param clientId the lock client's id, the first part of its owner ids in Redis
     * @param byDefault what to do for calls that leave it to the property (ROLL_BACK or COMMIT_AND_REPORT)
     */
    public CommitChecks(
            ActiveHolds holds,
            @Nullable LockHashReader reader,
            Supplier<String> clientId,
            OnLostBeforeCommit byDefault,
            LostBeforeCommitReport report) {
        this.confirmation = new HoldConfirmation(holds, reader, clientId);
        this.byDefault = byDefault == OnLostBeforeCommit.DEFAULT ? OnLostBeforeCommit.ROLL_BACK : byDefault;
        this.report = report;
    }

    @Override
    public void check(List<ActiveHolds.Entry> holds) {
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
