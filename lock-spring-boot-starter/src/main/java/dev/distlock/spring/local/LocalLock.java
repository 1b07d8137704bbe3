package dev.distlock.spring.local;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.RedisLock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RedisLock} that lives in this JVM ({@code distlock.mode=local}): thread-bound and reentrant,
 * and handle-owned through the async methods, which wait without a thread as lock-core's do.
 */
final class LocalLock implements RedisLock {

    /** The Duration variants refuse longer leases and wait for ever on longer waits, as lock-core's do. */
    private static final Duration MAX = Duration.ofDays(365);

    private final LocalLocks locks;
    private final LockInfo info;
    private final boolean read;
    private final boolean fair;

    LocalLock(LocalLocks locks, LockInfo info) {
        this.locks = locks;
        this.info = info;
        this.read = info.type() == dev.distlock.core.LockType.READ;
        this.fair = info.type() == dev.distlock.core.LockType.FAIR;
    }

    @Override
    public String getKey() {
        return info.key();
    }

    @Override
    public void lock() {
        acquireUninterruptibly(0);
    }

    @Override
    public void lock(Duration lease) {
        acquireUninterruptibly(leaseMs(lease));
    }

    private void acquireUninterruptibly(long leaseMs) {
        try {
            acquire(leaseMs, -1, false);
        } catch (InterruptedException e) {
            throw new IllegalStateException("not reached: uninterruptible wait", e);
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        acquire(0, -1, true);
    }

    @Override
    public boolean tryLock() {
        try {
            return acquire(0, 0, false);
        } catch (InterruptedException e) {
            throw new IllegalStateException("not reached: no wait", e);
        }
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return tryLock(waitTime, null);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration lease) throws InterruptedException {
        return acquire(lease == null ? 0 : leaseMs(lease), waitNanos(waitTime), true);
    }

    /** The wait in nanoseconds, or -1 (for ever) above 365 days. */
    private long waitNanos(Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException(
                    "waitTime of lock '" + info.key() + "' must not be negative or null, was " + waitTime);
        }
        return waitTime.compareTo(MAX) > 0 ? -1 : waitTime.toNanos();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        long nanos = Math.max(0, unit.toNanos(time));
        return acquire(0, nanos > MAX.toNanos() ? -1 : nanos, true);
    }

    private long leaseMs(Duration lease) {
        if (lease == null || lease.isNegative() || lease.isZero() || lease.compareTo(MAX) > 0) {
            throw new IllegalArgumentException(
                    "lease of lock '" + info.key() + "' must be positive and at most 365 days, was " + lease);
        }
        return Math.max(1, lease.toMillis());
    }

    /** @param waitNanos negative: wait for ever */
    private boolean acquire(long leaseMs, long waitNanos, boolean interruptible) throws InterruptedException {
        long start = System.nanoTime();
        boolean reentry = getHoldCount() > 0;
        LocalLockState.Hold hold;
        try {
            hold = locks.with(info.key(), state -> {
                try {
                    return state.acquire(info, read, fair, leaseMs, waitNanos, interruptible);
                } catch (InterruptedException e) {
                    throw new Interrupted(e);
                }
            });
        } catch (Interrupted e) {
            report(reentry, AcquireOutcome.ERROR, start);
            throw e.cause;
        } catch (RuntimeException e) {
            report(reentry, AcquireOutcome.ERROR, start);
            throw e;
        }
        report(reentry, hold != null ? AcquireOutcome.ACQUIRED : AcquireOutcome.TIMEOUT, start);
        return hold != null;
    }

    /** Re-entry is not reported, as with the Redis client. */
    private void report(boolean reentry, AcquireOutcome outcome, long start) {
        if (!reentry) {
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            locks.listeners().forEach(l -> l.onAcquire(info, outcome, waited));
        }
    }

    /** Carries an InterruptedException out of the state call. */
    private static final class Interrupted extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient InterruptedException cause;

        Interrupted(InterruptedException cause) {
            super(null, null, false, false);
            this.cause = cause;
        }
    }

    @Override
    public void unlock() {
        unlock(Duration.ZERO);
    }

    /** Keeps the lock taken by nobody until {@code holdAtLeast} after the grant, as the Redis lock does. */
    @Override
    public void unlock(Duration holdAtLeast) {
        long keepNanos = requireHoldAtLeast(info, holdAtLeast);
        locks.with(info.key(), state -> {
            state.release(read, keepNanos);
            return null;
        });
    }

    /** Checks {@code holdAtLeast} as the Redis locks do; returns it in nanoseconds. */
    static long requireHoldAtLeast(LockInfo info, Duration holdAtLeast) {
        if (holdAtLeast == null || holdAtLeast.isNegative() || holdAtLeast.compareTo(MAX) > 0) {
            throw new IllegalArgumentException(
                    "holdAtLeast of lock '" + info.key() + "' must be between 0 and 365 days, was " + holdAtLeast);
        }
        if (!holdAtLeast.isZero() && info.type() != dev.distlock.core.LockType.REENTRANT) {
            throw new UnsupportedOperationException("Lock '" + info.key() + "' (" + info.type()
                    + ") cannot stay taken after unlock: holdAtLeast is supported by reentrant locks and"
                    + " multi-locks of them; use getLock(name), or unlock() without holdAtLeast");
        }
        return holdAtLeast.toNanos();
    }

    @Override
    public CompletionStage<LockHandle> lockAsync() {
        return granted(acquireAsync(0, -1), handle -> ((LocalHandle) handle).giveBack());
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime) {
        return tryLockAsync(waitTime, null);
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime, @Nullable Duration lease) {
        return acquireAsync(lease == null ? 0 : leaseMs(lease), waitNanos(waitTime));
    }

    /**
     * Queues a handle's acquisition without a thread (negative {@code waitNanos}: for ever). Cancelling the
     * result while it waits leaves the queue; a grant that raced the cancel is given back.
     */
    /**
     * The handle {@code waiting} grants, for a wait without end: cancelling the result cancels
     * {@code waiting}, and a handle granted as the result was cancelled goes to {@code giveBack}.
     */
    private static CompletableFuture<LockHandle> granted(
            CompletableFuture<Optional<LockHandle>> waiting, Consumer<LockHandle> giveBack) {
        CompletableFuture<LockHandle> result = new CompletableFuture<>();
        result.whenComplete((handle, error) -> {
            if (result.isCancelled()) {
                waiting.cancel(false);
            }
        });
        waiting.whenComplete((handle, error) -> {
            if (error != null) {
                result.completeExceptionally(
                        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
            } else if (!result.complete(handle.orElseThrow())) {
                giveBack.accept(handle.get());
            }
        });
        return result;
    }

    private CompletableFuture<Optional<LockHandle>> acquireAsync(long leaseMs, long waitNanos) {
        long start = System.nanoTime();
        LocalLockState.Waiter waiter = new LocalLockState.Waiter(info, read, fair, leaseMs);
        CompletableFuture<LocalLockState.Hold> granted =
                locks.with(info.key(), state -> state.acquireAsync(waiter, waitNanos));
        CompletableFuture<Optional<LockHandle>> result = new CompletableFuture<>();
        result.whenComplete((handle, error) -> {
            if (result.isCancelled() && granted.cancel(false)) {
                locks.with(info.key(), state -> state.giveUp(waiter));
            }
        });
        granted.whenComplete((hold, error) -> {
            report(
                    false,
                    hold != null
                            ? AcquireOutcome.ACQUIRED
                            : error != null ? AcquireOutcome.ERROR : AcquireOutcome.TIMEOUT,
                    start);
            if (error != null) {
                result.completeExceptionally(error);
            } else if (hold == null) {
                result.complete(Optional.empty());
            } else if (!result.complete(Optional.of(new LocalHandle(locks, hold)))) {
                locks.giveBack(hold); // cancelled as it was granted
            }
        });
        return result;
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return getHoldCount() > 0;
    }

    @Override
    public int getHoldCount() {
        LocalLockState.Hold hold = locks.with(info.key(), state -> state.held(read));
        return hold == null ? 0 : hold.count;
    }

    @Override
    public boolean isLocked() {
        return locks.with(info.key(), LocalLockState::isLocked);
    }

    @Override
    public Duration remainingLease() {
        return locks.with(info.key(), state -> state.remainingLease(locks.watchdogLease()));
    }

    @Override
    public long currentFencingToken() {
        LocalLockState.Hold hold = locks.with(info.key(), state -> state.held(read));
        if (hold == null) {
            throw new IllegalMonitorStateException(
                    "Lock '" + info.key() + "' is not held by the current thread: no fencing token");
        }
        return hold.token;
    }

    @Override
    public boolean forceUnlock() {
        return locks.with(info.key(), LocalLockState::forceUnlock);
    }

    @Override
    public String toString() {
        return "LocalLock[" + info.key() + ", " + info.type() + "]";
    }
}
