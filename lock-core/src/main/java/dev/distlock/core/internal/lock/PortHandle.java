package dev.distlock.core.internal.lock;

import dev.distlock.core.AbstractLockHandle;
import dev.distlock.core.LockHandle;
import dev.distlock.core.internal.lease.LeaseState;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A {@link LockHandle} over any engine's hold: released through the engine's port, once. */
final class PortHandle<H extends LeaseState> extends AbstractLockHandle {

    private final LockPort<H> port;
    private final H hold;

    PortHandle(LockPort<H> port, H hold) {
        this.port = port;
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
        return !released() && hold.isLive(System.nanoTime());
    }

    @Override
    public CompletionStage<String> leaseLost() {
        return hold.lost.minimalCompletionStage();
    }

    @Override
    protected CompletableFuture<Void> release(Duration holdAtLeast) {
        return port.releaseAsync(hold, holdAtLeast);
    }

    @Override
    protected void checkHoldAtLeast(Duration holdAtLeast) {
        port.checkHoldAtLeast(holdAtLeast);
    }
}
