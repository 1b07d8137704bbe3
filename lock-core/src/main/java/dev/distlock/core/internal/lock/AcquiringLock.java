package dev.distlock.core.internal.lock;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockInfo;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.support.Durations;
import dev.distlock.core.internal.support.Futures;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The acquiring half of the {@link RedisLock} contract, written once: argument checks, the
 * interruptible and uninterruptible variants, and the {@link java.util.concurrent.locks.Lock}
 * overloads, all funnelled into one {@link #acquire} that a lock implements.
 */
abstract class AcquiringLock implements RedisLock {

    final LockInfo info;

    AcquiringLock(LockInfo info) {
        this.info = info;
    }

    /**
     * One acquisition for the current thread.
     *
     * @param wait how long to wait; {@code null} waits for ever
     * @param lease a fixed lease, or {@code null} for the watchdog lease
     * @return whether the lock was granted
     */
    abstract boolean acquire(@Nullable Duration wait, @Nullable Duration lease, boolean interruptible)
            throws InterruptedException;

    /**
     * One acquisition for a new handle, without blocking a thread.
     *
     * @param wait how long to wait; {@code null} waits for ever
     * @param lease a fixed lease, or {@code null} for the watchdog lease
     * @return the handle, or empty when the wait ran out
     */
    abstract CompletableFuture<Optional<LockHandle>> acquireAsync(@Nullable Duration wait, @Nullable Duration lease);

    @Override
    public CompletionStage<LockHandle> lockAsync() {
        return Futures.derive(
                acquireAsync(null, null), Optional::orElseThrow, handle -> handle.ifPresent(LockHandle::unlockAsync));
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime) {
        return tryLockAsync(waitTime, null);
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime, @Nullable Duration lease) {
        Duration wait = Durations.waitOrForever(waitTime, "waitTime of lock '" + info.key() + "'");
        Durations.requireLease(lease, info.key());
        return acquireAsync(wait, lease);
    }

    @Override
    public String getKey() {
        return info.key();
    }

    @Override
    public void lock() {
        acquireUninterruptibly(null);
    }

    @Override
    public void lock(Duration lease) {
        acquireUninterruptibly(Durations.requireFixedLease(lease, info.key()));
    }

    private void acquireUninterruptibly(@Nullable Duration lease) {
        try {
            acquire(null, lease, false);
        } catch (InterruptedException e) {
            throw new IllegalStateException("unreachable: uninterruptible acquire was interrupted", e);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(null, null, true);
    }

    @Override
    public boolean tryLock() {
        try {
            return acquire(Duration.ZERO, null, false);
        } catch (InterruptedException e) {
            throw new IllegalStateException("unreachable: a single attempt does not wait", e);
        }
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return tryLock(waitTime, null);
    }

    @Override
    public boolean tryLock(Duration waitTime, @Nullable Duration lease) throws InterruptedException {
        Duration wait = Durations.waitOrForever(waitTime, "waitTime of lock '" + info.key() + "'");
        Durations.requireLease(lease, info.key());
        return acquire(wait, lease, true);
    }

    /**
     * {@inheritDoc} As with {@code java.util.concurrent} locks, a wait beyond {@link Durations#MAX_WAIT}
     * (such as {@code Long.MAX_VALUE}) waits for ever.
     */
    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return acquire(Durations.waitOrForever(time, unit), null, true);
    }
}
