package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * A semaphore shared by every process that uses the same Redis and key: at most {@link #permits()}
 * permits are held at once. Each grant is a {@link LockHandle} of its own, not bound to a thread: give
 * its permits back with {@link LockHandle#unlock()} (or {@code close()}) from any thread, exactly once.
 *
 * <p>Every grant is leased like a lock: without an explicit lease the client's watchdog renews it while
 * the handle is held, and a crashed holder's permits free themselves within one lease. A grant whose
 * lease is lost (it ran out, Redis lost the key, or it was force-released) is reported as for locks: the
 * handle's {@link LockHandle#leaseLost()}, the client's {@link LockListener}s, and a
 * {@link LockLeaseExpiredException} from {@code unlock()}. Each grant carries a fencing token that grows
 * with every grant of the semaphore.
 *
 * <p>Waiting is as for locks: no polling, a release wakes those who wait, every wait is bounded, and a
 * call whose reply was lost is the same grant when sent again. A fair semaphore
 * ({@link LockClient#getFairSemaphore}) serves waiters in the order they first asked, across clients: a
 * waiter that wants more permits than are free holds those behind it back.
 *
 * <p>The number of permits belongs to the semaphore: a client that declares another number for a key in
 * use gets an {@link IllegalStateException} naming both numbers (the number stays fixed as long as the
 * semaphore's fencing counter, {@link LockClientOptions#fencingCounterTtl()} after its last grant).
 *
 * <pre>{@code
 * RedisSemaphore exports = client.getSemaphore("partner-api", 3);
 * Optional<LockHandle> permit = exports.tryAcquire(Duration.ofSeconds(2));
 * if (permit.isPresent()) {
 *     try (LockHandle held = permit.get()) {
 *         partner.export(held.fencingToken());
 *     }
 * }
 * }</pre>
 */
public interface RedisSemaphore {

    /** The semaphore's key, as given to {@link LockClient#getSemaphore}. */
    String getKey();

    /** How many permits the semaphore has. */
    int permits();

    /** Whether waiters are served in the order they first asked. */
    boolean isFair();

    /** Takes one permit, waiting for as long as it takes. */
    LockHandle acquire() throws InterruptedException;

    /** Takes {@code permits} permits at once, waiting for as long as it takes. */
    LockHandle acquire(int permits) throws InterruptedException;

    /** Takes one permit if one is free within {@code waitTime}; empty when the wait ran out. */
    Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException;

    /**
     * Takes {@code permits} permits at once if they are free within {@code waitTime}.
     *
     * @param lease a fixed lease (no renewal), or {@code null} for the watchdog lease
     * @return the handle, or empty when the wait ran out
     * @throws IllegalArgumentException when {@code permits} is not between 1 and {@link #permits()}
     */
    Optional<LockHandle> tryAcquire(int permits, Duration waitTime, @Nullable Duration lease)
            throws InterruptedException;

    /** {@link #acquire(int)} without blocking a thread; cancelling the stage while it waits gives up. */
    CompletionStage<LockHandle> acquireAsync(int permits);

    /**
     * {@link #tryAcquire(int, Duration, Duration)} without blocking a thread: completes with the handle, or
     * empty when the wait ran out; cancelling it while it waits gives everything up.
     */
    CompletionStage<Optional<LockHandle>> tryAcquireAsync(int permits, Duration waitTime, @Nullable Duration lease);

    /** Permits free right now, read from Redis (holders whose lease ended count as free). */
    int availablePermits();

    /**
     * Frees every permit whoever holds it (an operator's tool); holders of this client learn it at once,
     * others at their next renewal or release.
     *
     * @return whether any permit was held
     */
    boolean forceReleaseAll();
}
