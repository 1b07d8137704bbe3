package dev.distlock.spring.local;

import dev.distlock.core.LockHandle;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A local lock's hold owned by a handle rather than a thread ({@code distributed-lock.mode=local}), with
 * the rules of lock-core's handles: any thread may release it, exactly once; no re-entry.
 */
final class LocalHandle implements LockHandle {

    private final LocalLocks locks;
    private final LocalLockState.Hold hold;
    private final AtomicBoolean released = new AtomicBoolean();

    LocalHandle(LocalLocks locks, LocalLockState.Hold hold) {
        this.locks = locks;
        this.hold = hold;
    }

    @Override
    public String key() {
        return hold.info.key();
    }

    @Override
    public long fencingToken() {
        return hold.token;
    }

    @Override
    public boolean isHeld() {
        return !released.get() && locks.with(key(), state -> state.isLive(hold));
    }

    @Override
    public CompletionStage<String> leaseLost() {
        return hold.lost.minimalCompletionStage();
    }

    @Override
    public void unlock() {
        release(Duration.ZERO);
    }

    @Override
    public CompletionStage<Void> unlockAsync() {
        return unlockAsync(Duration.ZERO);
    }

    /** Nothing to wait for in this JVM: releases at once, and the stage says how it went. */
    @Override
    public CompletionStage<Void> unlockAsync(Duration holdAtLeast) {
        LocalLock.requireHoldAtLeast(hold.info, holdAtLeast);
        try {
            release(holdAtLeast);
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void release(Duration holdAtLeast) {
        long keepNanos = LocalLock.requireHoldAtLeast(hold.info, holdAtLeast);
        if (!released.compareAndSet(false, true)) {
            throw new IllegalStateException(
                    "The handle of lock '" + key() + "' was already released: a handle releases its hold exactly once");
        }
        locks.with(key(), state -> {
            state.releaseHandle(hold, keepNanos);
            return null;
        });
    }

    /** Releases a hold nobody took (its acquisition was cancelled as it was granted). */
    void giveBack() {
        if (released.compareAndSet(false, true)) {
            locks.giveBack(hold);
        }
    }

    @Override
    public void close() {
        if (!released.get()) {
            unlock();
        }
    }

    @Override
    public String toString() {
        return "LocalHandle[" + key() + ", token " + hold.token + (isHeld() ? "" : ", not held") + "]";
    }
}
