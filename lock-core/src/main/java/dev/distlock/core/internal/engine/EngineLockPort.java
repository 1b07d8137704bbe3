package dev.distlock.core.internal.engine;

import dev.distlock.core.LockInfo;
import dev.distlock.core.internal.lock.HoldAtLeast;
import dev.distlock.core.internal.lock.LockPort;
import dev.distlock.core.internal.redis.LockKeys;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** One lock of one kind as a {@link LockEngine} serves it to a lock object. */
final class EngineLockPort implements LockPort<Hold> {

    private final LockEngine engine;
    private final LockTarget target;
    private final LockKind kind;
    private final LockInfo info;
    private final LockKeys keys;

    EngineLockPort(LockEngine engine, LockKind kind, LockInfo info, LockKeys keys) {
        this.engine = engine;
        this.target = new LockTarget(kind, info, keys);
        this.kind = kind;
        this.info = info;
        this.keys = keys;
    }

    @Override
    public String clientId() {
        return engine.clientId;
    }

    @Override
    public @Nullable Hold acquire(
            String owner, @Nullable Duration wait, @Nullable Duration lease, boolean interruptible)
            throws InterruptedException {
        return engine.acquire(target, owner, wait, lease, interruptible);
    }

    @Override
    public CompletableFuture<@Nullable Hold> acquireAsync(@Nullable Duration wait, @Nullable Duration lease) {
        return engine.acquireAsync(target, wait, lease);
    }

    @Override
    public CompletableFuture<Void> releaseAsync(Hold hold, Duration holdAtLeast) {
        return engine.releaseAsync(hold, holdAtLeast);
    }

    @Override
    public @Nullable Hold hold(String owner) {
        return engine.hold(kind, keys, owner);
    }

    @Override
    public void release(Hold hold, Duration holdAtLeast) {
        engine.release(hold, holdAtLeast);
    }

    @Override
    public void checkHoldAtLeast(Duration holdAtLeast) {
        if (!holdAtLeast.isZero() && !kind.keepsAfterRelease()) {
            throw HoldAtLeast.unsupported(info);
        }
    }

    @Override
    public boolean isLocked() {
        return engine.isLocked(keys);
    }

    @Override
    public Duration remainingLease() {
        return engine.remainingLease(keys);
    }

    @Override
    public boolean forceUnlock() {
        return engine.forceRelease(kind, keys);
    }
}
