package dev.distlock.core.internal.lock;

import dev.distlock.core.internal.lease.LeaseState;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One lock as an engine serves it to a lock object, whatever the engine (one Redis, or RedLock over
 * several): acquire and release holds by owner id, and look at the lock in Redis.
 *
 * @param <H> the engine's hold
 */
public interface LockPort<H extends LeaseState> {

    /** The id of the client, which owner ids start with. */
    String clientId();

    /**
     * Acquires for {@code owner}.
     *
     * @param wait how long to wait; {@code null} waits for ever
     * @param lease a fixed lease, or {@code null} for the watchdog lease
     * @return the hold, or {@code null} when the wait ran out
     */
    @Nullable
    H acquire(String owner, @Nullable Duration wait, @Nullable Duration lease, boolean interruptible)
            throws InterruptedException;

    /**
     * Acquires for a new handle without blocking a thread: completes with the hold, with {@code null}
     * when the wait ran out, or exceptionally; cancelling it while it waits gives everything up.
     */
    CompletableFuture<@Nullable H> acquireAsync(@Nullable Duration wait, @Nullable Duration lease);

    /**
     * Releases one count of {@code hold} without blocking; a last release leaves the lock taken by
     * nobody until {@code holdAtLeast} after its grant ({@link Duration#ZERO}: frees it at once).
     *
     * @throws UnsupportedOperationException when {@code holdAtLeast} is positive and this lock cannot
     *         keep itself taken after release (checked by {@link #checkHoldAtLeast} first)
     */
    CompletableFuture<Void> releaseAsync(H hold, Duration holdAtLeast);

    /** The hold {@code owner} has, or {@code null}. */
    @Nullable
    H hold(String owner);

    /** Releases one count of {@code hold}; see {@link #releaseAsync}. */
    void release(H hold, Duration holdAtLeast);

    /**
     * Refuses a positive {@code holdAtLeast} for a lock that cannot stay taken after its release,
     * before anything is released.
     *
     * @throws UnsupportedOperationException naming the lock kinds that can
     */
    void checkHoldAtLeast(Duration holdAtLeast);

    boolean isLocked();

    Duration remainingLease();

    boolean forceUnlock();
}
