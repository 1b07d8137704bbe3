package dev.distlock.core.reactor;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisSemaphore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
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
        return granted(() -> lock.tryLockAsync(waitTime));
    }

    /**
     * Waits up to {@code waitTime} for {@code permits} permits of the semaphore; emits the handle that holds
     * them, or completes empty when the wait ran out.
     */
    public static Mono<LockHandle> tryAcquire(RedisSemaphore semaphore, int permits, Duration waitTime) {
        return granted(() -> semaphore.tryAcquireAsync(permits, waitTime, null));
    }

    /**
     * Runs {@code work} holding {@code permits} permits of the semaphore, as {@link #usingLock} runs it under
     * a lock: acquired within {@code waitTime} (else {@link LockAcquisitionException}), released exactly once.
     */
    public static <T> Flux<T> usingPermits(
            RedisSemaphore semaphore,
            int permits,
            Duration waitTime,
            Function<LockHandle, ? extends Publisher<T>> work) {
        return using(tryAcquire(semaphore, permits, waitTime), semaphore.getKey(), "Semaphore", waitTime, work);
    }

    private static Mono<LockHandle> granted(Supplier<CompletionStage<Optional<LockHandle>>> acquire) {
        return Mono.fromFuture(() -> acquire.get().toCompletableFuture(), false)
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
        return using(tryLock(lock, waitTime), lock.getKey(), "Lock", waitTime, work);
    }

    private static <T> Flux<T> using(
            Mono<LockHandle> granted,
            String key,
            String what,
            Duration waitTime,
            Function<LockHandle, ? extends Publisher<T>> work) {
        Mono<LockHandle> acquire = granted.switchIfEmpty(Mono.error(() -> new LockAcquisitionException(
                key, waitTime, what + " '" + key + "' was not acquired within " + waitTime.toMillis() + " ms", null)));
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
