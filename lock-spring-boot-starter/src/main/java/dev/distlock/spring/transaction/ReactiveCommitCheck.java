package dev.distlock.spring.transaction;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.BeforeCommitCheck;
import dev.distlock.spring.execution.ReactiveHolds;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import org.springframework.core.Ordered;
import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A reactive transaction's check before it commits, registered by {@code ReactiveLockContext.checkBeforeCommit()}
 * inside a lock's publisher: the same check as an imperative transaction's ({@link CommitChecks}), made off the
 * event loop since it may ask Redis. Registered once per transaction: a second registration adds its holds to the
 * first. Infrastructure of the starter, not API.
 */
public final class ReactiveCommitCheck implements TransactionSynchronization, Ordered {

    private final BeforeCommitCheck check;
    /** Innermost first, in the order they were registered; a set, so that a hold is checked once. */
    private final Set<ActiveHolds.Entry> holds = new CopyOnWriteArraySet<>();

    private ReactiveCommitCheck(BeforeCommitCheck check, List<ActiveHolds.Entry> holds) {
        this.check = check;
        this.holds.addAll(holds);
    }

    /**
     * Registers the check of {@code enclosing}'s holds on the current reactive transaction; fails with
     * IllegalStateException, saying what to change, when there is none.
     */
    public static Mono<Void> register(ReactiveHolds enclosing, BeforeCommitCheck check) {
        return TransactionSynchronizationManager.forCurrentTransaction()
                .onErrorMap(NoTransactionException.class, e -> outsideTransaction(enclosing, e.getMessage()))
                .flatMap(transaction -> {
                    if (!transaction.isSynchronizationActive() || !transaction.isActualTransactionActive()) {
                        return Mono.error(outsideTransaction(
                                enclosing,
                                transaction.isActualTransactionActive()
                                        ? "the transaction manager does not synchronize this transaction"
                                                + " (set its transactionSynchronization to SYNCHRONIZATION_ALWAYS)"
                                        : "the transaction context has no actual transaction (propagation SUPPORTS,"
                                                + " NOT_SUPPORTED or NEVER)"));
                    }
                    for (TransactionSynchronization registered : transaction.getSynchronizations()) {
                        if (registered instanceof ReactiveCommitCheck same) {
                            same.holds.addAll(enclosing.holds());
                            return Mono.<Void>empty();
                        }
                    }
                    transaction.registerSynchronization(new ReactiveCommitCheck(check, enclosing.holds()));
                    return Mono.<Void>empty();
                });
    }

    private static IllegalStateException outsideTransaction(ReactiveHolds enclosing, String why) {
        return new IllegalStateException("ReactiveLockContext.checkBeforeCommit() in the publisher of "
                + enclosing.holds().get(0).request().caller()
                + " found no reactive transaction to check (" + why + "); compose it inside the transaction:"
                + " in the publisher of a @Transactional method that the lock wraps, or inside"
                + " TransactionalOperator.transactional(...)");
    }

    /** Last of the before-commit steps, so that the check sits as close to the commit as it can. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public Mono<Void> beforeCommit(boolean readOnly) {
        return Mono.<Void>fromRunnable(() -> check.check(List.copyOf(holds))).subscribeOn(Schedulers.boundedElastic());
    }
}
