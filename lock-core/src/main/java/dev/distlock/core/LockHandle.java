package dev.distlock.core;

import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * A hold owned by this handle rather than by a thread, from {@link RedisLock#lockAsync()} and
 * {@link RedisLock#tryLockAsync(java.time.Duration)}: any thread may use it and release it, exactly
 * once. The watchdog renews it like a thread's hold, it has a fencing token, and listeners see it as
 * they see any hold.
 *
 * <p>Handles do not re-enter: every acquisition is a hold of its own, so a flow that asks again for
 * a lock its own handle holds waits for itself until its wait runs out. Pass the handle on instead.
 *
 * <p>An implementation of your own should extend {@link AbstractLockHandle}, which keeps these release
 * rules.
 */
public interface LockHandle extends AutoCloseable {

    /** The key of the lock this handle holds. */
    String key();

    /** The fencing token of this hold: larger than every token granted for the lock before it. */
    long fencingToken();

    /**
     * The fencing token of every lock this handle holds, by key, in locking order: one entry for a
     * lock, one per key for a multi-lock (whose {@link #fencingToken()} is the largest of them).
     */
    default Map<String, Long> fencingTokens() {
        return Map.of(key(), fencingToken());
    }

    /** Whether the hold is still valid: not released, not lost, its lease not run out. */
    boolean isHeld();

    /**
     * Completes with the reason when the hold is lost while held (renewal found it gone, Redis
     * unreachable for a whole lease, or a fixed lease ran out); never completes when it is released first.
     */
    CompletionStage<String> leaseLost();

    /**
     * Releases the hold, waiting for Redis at most the client's operation timeout.
     *
     * @throws IllegalStateException when this handle was already released
     * @throws LockLeaseExpiredException when the hold had been lost or its lease had run out
     * @throws LockUnavailableException when Redis did not confirm the release in time; it is then
     *         retried in the background until the lease ends, when the lock frees itself anyway
     */
    void unlock();

    /** {@link #unlock()} without blocking: the stage completes (or fails, with the same exceptions) when Redis answered. */
    CompletionStage<Void> unlockAsync();

    /**
     * Releases the hold, leaving the lock taken by nobody until {@code holdAtLeast} after its grant;
     * see {@link RedisLock#unlock(java.time.Duration)}. Without blocking.
     *
     * @throws IllegalArgumentException when {@code holdAtLeast} is negative or over 365 days
     * @throws UnsupportedOperationException for lock kinds other than the reentrant lock (and
     *         multi-locks of it); the handle is then not released
     */
    CompletionStage<Void> unlockAsync(java.time.Duration holdAtLeast);

    /** Releases the hold if this handle has not been released yet, as {@link #unlock()} does; else does nothing. */
    @Override
    void close();
}
