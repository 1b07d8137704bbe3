package dev.distlock.core.internal.lock;

import dev.distlock.core.AbstractLockHandle;
import dev.distlock.core.LockHandle;
import dev.distlock.core.internal.lease.LeaseState;
import dev.distlock.core.internal.support.Futures;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/** A {@link LockHandle} over any engine's hold: released through the engine's port, once. */
final class PortHandle<H extends LeaseState> extends AbstractLockHandle {

    private final LockPort<H> port;
    private final H hold;

    PortHandle(LockPort<H> port, H hold) {
        this.port = port;
        this.hold = hold;
    }

    /**
     * What an async acquire on {@code port} ends with: a handle over the hold, or empty when the wait ran
     * out; a hold that arrives after the caller gave up on it is released.
     */
    static <H extends LeaseState> CompletableFuture<Optional<LockHandle>> of(
            LockPort<H> port, CompletableFuture<@Nullable H> acquiring) {
        return Futures.derive(
                acquiring,
                hold -> hold == null ? Optional.<LockHandle>empty() : Optional.of(new PortHandle<>(port, hold)),
                hold -> {
                    if (hold != null) {
                        port.releaseAsync(hold, Duration.ZERO);
                    }
                });
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
