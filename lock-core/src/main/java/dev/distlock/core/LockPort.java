package dev.distlock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * One lock as an engine serves it to a lock object, whatever the engine (one Redis, or RedLock over
 * several): acquire and release holds by owner id, and look at the lock in Redis.
 *
 * @param <H> the engine's hold
 */
interface LockPort<H extends LeaseState> {

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

    /** Releases one count of {@code hold} without blocking. */
    CompletableFuture<Void> releaseAsync(H hold);

    /** The hold {@code owner} has, or {@code null}. */
    @Nullable
    H hold(String owner);

    /** Releases one count of {@code hold}. */
    void release(H hold);

    boolean isLocked();

    Duration remainingLease();

    boolean forceUnlock();
}
