package dev.distlock.spring;

import dev.distlock.spring.execution.BeforeCommitCheck;
import dev.distlock.spring.execution.ReactiveHolds;
import dev.distlock.spring.transaction.ReactiveCommitCheck;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * The fencing token of a {@code @DistributedLock} method returning {@code Mono} or {@code Flux}, read
 * from the Reactor {@code Context} of its publisher: the work runs on whatever threads Reactor picks,
 * so the thread-bound {@link LockContext} only serves while the method itself is invoked.
 *
 * <pre>{@code
 * @DistributedLock(key = "'stock:' + #sku")
 * public Mono<Void> book(String sku) {
 *     return ReactiveLockContext.currentToken().flatMap(token -> stock.decrement(sku, token));
 * }
 * }</pre>
 *
 * In a Kotlin {@code suspend} function or {@code Flow} the token is in the coroutine's {@code ReactorContext}:
 * {@code ReactiveLockContext.currentToken().awaitSingle()} (kotlinx-coroutines-reactor) reads it.
 */
public final class ReactiveLockContext {

    /**
     * The Reactor {@code Context} key under which the method's publisher finds its tokens: a
     * {@code Map<String, Long>} from each key to its fencing token.
     */
    public static final String TOKENS = "dev.distlock.spring.fencingTokens";

    private ReactiveLockContext() {}

    /**
     * Emits the fencing token of the enclosing {@code @DistributedLock} publisher (for a multi-key lock,
     * the largest); fails with IllegalStateException outside one.
     */
    public static Mono<Long> currentToken() {
        return currentTokens()
                .map(tokens -> tokens.values().stream()
                        .mapToLong(Long::longValue)
                        .max()
                        .orElseThrow());
    }

    /**
     * Checks, just before the enclosing reactive transaction commits, that the lock of the enclosing
     * {@code @DistributedLock} publisher (and of any lock publisher around it) is still held, as Spring's
     * imperative transactions are checked without asking: a lock lost before the commit fails it with
     * {@link LockLostBeforeCommitException}, naming the lock, and the transaction rolls back; or, with
     * {@code onLostBeforeCommit = COMMIT_AND_REPORT} (or {@code distlock.transaction.on-lost-before-commit}),
     * it commits and the loss is logged and counted. The check asks this instance's lease clock, then Redis
     * (off the event loop). A reactive transaction begins when its publisher is subscribed, on no particular
     * thread, so no listener can tell which lock it runs in: the publisher must ask, once, anywhere inside the
     * transaction. Asking again in the same transaction registers nothing more.
     *
     * <pre>{@code
     * @DistributedLock(key = "'stock:' + #sku")
     * @Transactional
     * public Mono<Void> book(String sku) {
     *     return stock.decrement(sku).then(ReactiveLockContext.checkBeforeCommit());
     * }
     * }</pre>
     *
     * With {@code TransactionalOperator}, compose it inside the transactional publisher:
     * {@code operator.transactional(stock.decrement(sku).then(ReactiveLockContext.checkBeforeCommit()))}.
     *
     * <p>Fails with IllegalStateException outside a lock's publisher, like {@link #currentToken()}, and outside a
     * reactive transaction: there the call would protect nothing, most likely because {@code @Transactional} is
     * not applied to the method or the publisher is composed outside {@code TransactionalOperator}, which a
     * silent no-op would hide. With {@code distlock.transaction.check-before-commit=false} it does nothing. The
     * check narrows the window to the commit itself; a fence at the store ({@link LockContext#fence()}) closes it.
     *
     * @return completes empty once the check is registered on the current transaction
     */
    public static Mono<Void> checkBeforeCommit() {
        return Mono.deferContextual(ctx -> {
            ReactiveHolds enclosing = ctx.getOrDefault(ReactiveHolds.KEY, null);
            if (enclosing == null) {
                return Mono.error(new IllegalStateException(
                        "ReactiveLockContext.checkBeforeCommit(): no @DistributedLock Mono or Flux encloses this"
                                + " publisher, so there is no lock to check; use it inside the publisher the"
                                + " annotated method returns (with distlock.enabled=false no method is locked,"
                                + " and nothing can be checked)"));
            }
            BeforeCommitCheck check = enclosing.check().get();
            // No check (switched off by distlock.transaction.check-before-commit=false, or no spring-tx).
            return check == null ? Mono.empty() : ReactiveCommitCheck.register(enclosing, check);
        });
    }

    /** Emits the fencing token of each key of the enclosing {@code @DistributedLock} publisher. */
    public static Mono<Map<String, Long>> currentTokens() {
        return Mono.deferContextual(
                ctx -> ctx.<Map<String, Long>>getOrEmpty(TOKENS)
                        .map(Mono::just)
                        .orElseGet(
                                () -> Mono.error(
                                        new IllegalStateException(
                                                "No @DistributedLock Mono or Flux encloses this publisher,"
                                                        + " so there is no fencing token; use ReactiveLockContext inside the publisher the annotated method returns"))));
    }
}
