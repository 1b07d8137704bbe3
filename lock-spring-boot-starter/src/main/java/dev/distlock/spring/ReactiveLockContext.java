package dev.distlock.spring;

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
