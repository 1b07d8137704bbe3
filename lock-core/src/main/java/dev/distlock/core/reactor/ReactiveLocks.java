package dev.distlock.core.reactor;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisLock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Project Reactor views of the async lock methods (Reactor comes with Lettuce; nothing to add).
 * Each {@code Mono} acquires when subscribed, waits without blocking a thread, and gives everything
 * up in Redis when cancelled while it waits.
 *
 * <pre>{@code
 * Flux<Receipt> receipts = ReactiveLocks.usingLock(client.getLock("order:" + id), Duration.ofSeconds(2),
 *         handle -> payments.pay(id, handle.fencingToken()));
 * }</pre>
 */
public final class ReactiveLocks {

    private ReactiveLocks() {}

    /** Waits for the lock, for as long as it takes; emits the handle that owns the hold. */
    public static Mono<LockHandle> lock(RedisLock lock) {
        return Mono.fromFuture(() -> lock.lockAsync().toCompletableFuture(), false)
                .doOnDiscard(LockHandle.class, ReactiveLocks::giveBack);
    }

    /** Waits up to {@code waitTime}; emits the handle, or completes empty when the wait ran out. */
    public static Mono<LockHandle> tryLock(RedisLock lock, Duration waitTime) {
        return Mono.fromFuture(() -> lock.tryLockAsync(waitTime).toCompletableFuture(), false)
                .doOnDiscard(Optional.class, granted -> granted.ifPresent(ReactiveLocks::giveBack))
                .flatMap(Mono::justOrEmpty)
                .doOnDiscard(LockHandle.class, ReactiveLocks::giveBack);
    }

    /**
     * Runs {@code work} under the lock: acquires within {@code waitTime} (else fails with
     * {@link LockAcquisitionException}), subscribes to the work's publisher, and releases exactly once
     * when it completes, fails or is cancelled. The work gets the handle for its fencing token.
     */
    public static <T> Flux<T> usingLock(
            RedisLock lock, Duration waitTime, Function<LockHandle, ? extends Publisher<T>> work) {
        Mono<LockHandle> acquire = tryLock(lock, waitTime)
                .switchIfEmpty(Mono.error(() -> new LockAcquisitionException(
                        lock.getKey(),
                        waitTime,
                        "Lock '" + lock.getKey() + "' was not acquired within " + waitTime.toMillis() + " ms",
                        null)));
        return Flux.usingWhen(
                acquire, work, ReactiveLocks::release, (handle, error) -> release(handle), ReactiveLocks::release);
    }

    /**
     * A handle Reactor dropped instead of emitting (the subscriber cancelled as the grant arrived): nobody
     * else would release it, and its watchdog would keep it held.
     */
    private static void giveBack(Object handle) {
        if (handle instanceof LockHandle granted && granted.isHeld()) {
            granted.unlockAsync(); // without blocking: this runs on whichever thread Reactor dropped it
        }
    }

    private static Mono<Void> release(LockHandle handle) {
        return Mono.fromCompletionStage(handle::unlockAsync);
    }
}
