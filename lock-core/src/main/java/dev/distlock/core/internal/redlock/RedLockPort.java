package dev.distlock.core.internal.redlock;

import dev.distlock.core.LockInfo;
import dev.distlock.core.internal.lock.HoldAtLeast;
import dev.distlock.core.internal.lock.LockPort;
import dev.distlock.core.internal.redis.LockKeys;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/** One RedLock as a {@link RedLockEngine} serves it to a lock object: its keys on every node. */
final class RedLockPort implements LockPort<RedLockHold> {

    private final RedLockEngine engine;
    private final RedLockAcquirer acquirer;
    private final LockInfo info;
    private final List<LockKeys> keys;

    RedLockPort(RedLockEngine engine, RedLockAcquirer acquirer, LockInfo info, List<LockKeys> keys) {
        this.engine = engine;
        this.acquirer = acquirer;
        this.info = info;
        this.keys = keys;
    }

    @Override
    public String clientId() {
        return engine.clientId;
    }

    @Override
    public @Nullable RedLockHold acquire(
            String owner, @Nullable Duration wait, @Nullable Duration lease, boolean interruptible)
            throws InterruptedException {
        return acquirer.acquire(info, keys, owner, wait, lease, interruptible);
    }

    @Override
    public CompletableFuture<@Nullable RedLockHold> acquireAsync(@Nullable Duration wait, @Nullable Duration lease) {
        return acquirer.acquireAsync(info, keys, wait, lease);
    }

    @Override
    public CompletableFuture<Void> releaseAsync(RedLockHold hold, Duration holdAtLeast) {
        checkHoldAtLeast(holdAtLeast);
        return engine.releaseAsync(hold);
    }

    @Override
    public @Nullable RedLockHold hold(String owner) {
        return engine.hold(info.key(), owner);
    }

    @Override
    public void release(RedLockHold hold, Duration holdAtLeast) {
        checkHoldAtLeast(holdAtLeast);
        engine.release(hold);
    }

    /** RedLock does not keep a lock past its release: only a zero hold-at-least is accepted. */
    @Override
    public void checkHoldAtLeast(Duration holdAtLeast) {
        if (!holdAtLeast.isZero()) {
            throw HoldAtLeast.unsupported(info);
        }
    }

    @Override
    public boolean isLocked() {
        return engine.majorityTtl(keys) != -1;
    }

    @Override
    public Duration remainingLease() {
        long ttl = engine.majorityTtl(keys);
        return ttl > 0 ? Duration.ofMillis(ttl) : Duration.ZERO;
    }

    @Override
    public boolean forceUnlock() {
        return engine.forceRelease(keys);
    }
}
