package dev.distlock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/** The release rules every {@link LockHandle} shares: exactly once, from any thread, blocking or not. */
abstract class ReleasedOnce implements LockHandle {

    private final AtomicBoolean released = new AtomicBoolean();

    /** Releases the hold(s) behind this handle, leaving them taken until {@code holdAtLeast} after their grant; called once. */
    abstract CompletableFuture<Void> release(Duration holdAtLeast);

    /** Refuses a positive {@code holdAtLeast} this handle's lock cannot keep, before anything is released. */
    abstract void checkHoldAtLeast(Duration holdAtLeast);

    final boolean released() {
        return released.get();
    }

    @Override
    public final void unlock() {
        RedisCalls.join(unlockAsync().toCompletableFuture());
    }

    @Override
    public final CompletionStage<Void> unlockAsync() {
        return unlockAsync(Duration.ZERO);
    }

    @Override
    public final CompletionStage<Void> unlockAsync(Duration holdAtLeast) {
        HoldAtLeast.require(holdAtLeast, key());
        checkHoldAtLeast(holdAtLeast);
        if (!released.compareAndSet(false, true)) {
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
