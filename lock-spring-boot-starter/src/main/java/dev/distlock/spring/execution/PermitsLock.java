package dev.distlock.spring.execution;

import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisSemaphore;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The permits one locked call takes, through the {@link RedisLock} methods the call paths use: the blocking
 * path takes one permit for the calling thread and gives it back, the async paths get a handle of their
 * own. One instance serves one call (the executor asks its source for a lock per call), so the permit it
 * holds is that call's. Not reentrant: a semaphore counts grants, not owners.
 */
final class PermitsLock implements RedisLock {

    private final RedisSemaphore semaphore;
    /** The same key as a lock, to read its lease left in Redis (the longest holder's). */
    private final RedisLock sameKey;

    private volatile @Nullable LockHandle held;

    PermitsLock(RedisSemaphore semaphore, RedisLock sameKey) {
        this.semaphore = semaphore;
        this.sameKey = sameKey;
    }

    @Override
    public String getKey() {
        return semaphore.getKey();
    }

    @Override
    public boolean tryLock(Duration waitTime, @Nullable Duration lease) throws InterruptedException {
        Optional<LockHandle> granted = semaphore.tryAcquire(1, waitTime, lease);
        held = granted.orElse(null);
        return granted.isPresent();
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return tryLock(waitTime, null);
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(unit.toNanos(time)), null);
    }

    @Override
    public boolean tryLock() {
        try {
            return tryLock(Duration.ZERO, null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        held = semaphore.acquire();
    }

    @Override
    public void lock() {
        lock(null);
    }

    @Override
    public void lock(@Nullable Duration lease) {
        try {
            tryLock(RedisLock.MAX_DURATION, lease);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a permit of " + semaphore, e);
        }
    }

    @Override
    public void unlock() {
        unlock(Duration.ZERO);
    }

    @Override
    public void unlock(Duration holdAtLeast) {
        LockHandle permit = held;
        if (permit == null) {
            throw new IllegalMonitorStateException("No permit of " + semaphore + " is held by this call");
        }
        held = null;
        if (holdAtLeast.isZero()) {
            permit.unlock();
        } else {
            permit.unlockAsync(holdAtLeast).toCompletableFuture().join();
        }
    }

    @Override
    public boolean isHeldByCurrentThread() {
        LockHandle permit = held;
        return permit != null && permit.isHeld();
    }

    @Override
    public int getHoldCount() {
        return isHeldByCurrentThread() ? 1 : 0;
    }

    /** Whether every permit is taken. */
    @Override
    public boolean isLocked() {
        return semaphore.availablePermits() == 0;
    }

    @Override
    public Duration remainingLease() {
        return sameKey.remainingLease();
    }

    @Override
    public long currentFencingToken() {
        LockHandle permit = held;
        if (permit == null) {
            throw new IllegalMonitorStateException("No permit of " + semaphore + " is held by this call");
        }
        return permit.fencingToken();
    }

    @Override
    public boolean forceUnlock() {
        return semaphore.forceReleaseAll();
    }

    @Override
    public CompletionStage<LockHandle> lockAsync() {
        return semaphore.acquireAsync(1);
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime) {
        return tryLockAsync(waitTime, null);
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime, @Nullable Duration lease) {
        return semaphore.tryAcquireAsync(1, waitTime, lease);
    }

    @Override
    public String toString() {
        return semaphore.toString();
    }
}
