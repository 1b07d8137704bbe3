package dev.distlock.spring.local;

import dev.distlock.core.AbstractLockHandle;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A local lock's hold owned by a handle rather than a thread ({@code distlock.mode=local}), with
 * the rules of lock-core's handles (it extends their base): any thread may release it, exactly once; no
 * re-entry.
 */
final class LocalHandle extends AbstractLockHandle {

    private final LocalLocks locks;
    private final LocalLockState.Hold hold;

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
        return !released() && locks.with(key(), state -> state.isLive(hold));
    }

    @Override
    public CompletionStage<String> leaseLost() {
        return hold.lost.minimalCompletionStage();
    }

    /** Nothing to wait for in this JVM: releases at once, and the stage says how it went. */
    @Override
    protected CompletableFuture<Void> release(Duration holdAtLeast) {
        try {
            locks.with(key(), state -> {
                state.releaseHandle(hold, holdAtLeast.toNanos());
                return null;
            });
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    protected void checkHoldAtLeast(Duration holdAtLeast) {
        LocalLock.requireHoldAtLeast(hold.info, holdAtLeast);
    }

    /** Releases a hold nobody took (its acquisition was cancelled as it was granted). */
    void giveBack() {
        if (markReleased()) {
            locks.giveBack(hold);
        }
    }
}
