package dev.distlock.core;

import dev.distlock.core.internal.lock.HoldAtLeast;
import dev.distlock.core.internal.redis.RedisFailures;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The release rules every {@link LockHandle} of this library keeps: released exactly once, from any
 * thread, blocking or not; a second release fails and names the lock; {@link #close()} releases a hold
 * not released yet; hold-at-least is checked before anything is released. A handle of your own (a lock
 * kept in memory, a test double) that extends this class behaves as lock-core's handles do; it only
 * says how its hold is released.
 */
public abstract class AbstractLockHandle implements LockHandle {

    private final AtomicBoolean released = new AtomicBoolean();

    /** For subclasses. */
    protected AbstractLockHandle() {}

    /**
     * Releases the hold(s) behind this handle, leaving them taken until {@code holdAtLeast} after their
     * grant. Called at most once per handle, with a {@code holdAtLeast} already checked.
     *
     * @return completes when the release is done, exceptionally when it failed
     */
    protected abstract CompletableFuture<Void> release(Duration holdAtLeast);

    /**
     * Refuses a positive {@code holdAtLeast} this handle's lock cannot keep, before anything is released
     * (its range, 0 to 365 days, is checked already).
     *
     * @throws UnsupportedOperationException when this kind of lock cannot stay taken after its release
     */
    protected abstract void checkHoldAtLeast(Duration holdAtLeast);

    /**
     * Runs {@code other}'s {@link #checkHoldAtLeast} check, for a handle that combines others and must
     * refuse before releasing any of them.
     *
     * @param other a handle combined into this one
     * @param holdAtLeast how long its lock would have to stay taken after its grant
     */
    protected static void checkHoldAtLeastOf(AbstractLockHandle other, Duration holdAtLeast) {
        other.checkHoldAtLeast(holdAtLeast);
    }

    /** Whether this handle was released (or given back), successfully or not. */
    protected final boolean released() {
        return released.get();
    }

    /**
     * Marks this handle released without {@link #release}: for a subclass that gives back a hold nobody
     * took. Returns false when it was released already.
     */
    protected final boolean markReleased() {
        return released.compareAndSet(false, true);
    }

    @Override
    public final void unlock() {
        RedisFailures.join(unlockAsync().toCompletableFuture());
    }

    @Override
    public final CompletionStage<Void> unlockAsync() {
        return unlockAsync(Duration.ZERO);
    }

    @Override
    public final CompletionStage<Void> unlockAsync(Duration holdAtLeast) {
        HoldAtLeast.require(holdAtLeast, key());
        checkHoldAtLeast(holdAtLeast);
        if (!markReleased()) {
            return CompletableFuture.failedFuture(new IllegalStateException("The handle of lock '" + key()
                    + "' was already released: a handle releases its hold exactly once"));
        }
        return release(holdAtLeast);
    }

    @Override
    public final void close() {
        if (!released.get()) {
            unlock();
        }
    }

    @Override
    public String toString() {
        return "LockHandle[" + key() + ", token " + fencingToken() + (isHeld() ? "" : ", not held") + "]";
    }
}
