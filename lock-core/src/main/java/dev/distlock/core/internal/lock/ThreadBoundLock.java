package dev.distlock.core.internal.lock;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockInfo;
import dev.distlock.core.internal.engine.LockKind;
import dev.distlock.core.internal.lease.LeaseState;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A thread-bound, reentrant lock over any engine (a single Redis of any {@link LockKind}, or RedLock):
 * the owner is the client's id plus the current thread's id. Its async methods hand out handles,
 * each an owner of its own.
 */
public final class ThreadBoundLock<H extends LeaseState> extends AcquiringLock {

    private final LockPort<H> port;
    /** How messages and {@link #toString()} name it: {@code Lock} or {@code RedLock}. */
    private final String what;
    /** The owner id of the thread that used it last. */
    private @Nullable Owner lastOwner;

    public ThreadBoundLock(LockInfo info, LockPort<H> port, String what) {
        super(info);
        this.port = port;
        this.what = what;
    }

    @Override
    boolean acquire(@Nullable Duration wait, @Nullable Duration lease, boolean interruptible)
            throws InterruptedException {
        return port.acquire(owner(), wait, lease, interruptible) != null;
    }

    @Override
    CompletableFuture<Optional<LockHandle>> acquireAsync(@Nullable Duration wait, @Nullable Duration lease) {
        return PortHandle.of(port, port.acquireAsync(wait, lease));
    }

    @Override
    public void unlock() {
        unlock(Duration.ZERO);
    }

    @Override
    public void unlock(Duration holdAtLeast) {
        HoldAtLeast.require(holdAtLeast, info.key());
        checkHoldAtLeast(holdAtLeast);
        H hold = port.hold(owner());
        if (hold == null) {
            throw new IllegalMonitorStateException(what + " '" + info.key() + "' is not held by the current thread ("
                    + Thread.currentThread().getName() + "): only the owner can unlock it");
        }
        port.release(hold, holdAtLeast);
    }

    /** Refuses a positive {@code holdAtLeast} this kind of lock cannot keep, before anything is released. */
    void checkHoldAtLeast(Duration holdAtLeast) {
        port.checkHoldAtLeast(holdAtLeast);
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return liveHold() != null;
    }

    @Override
    public int getHoldCount() {
        H hold = liveHold();
        return hold != null ? hold.count() : 0;
    }

    /** {@inheritDoc} For a RedLock: whether a majority of the nodes hold the lock. */
    @Override
    public boolean isLocked() {
        return port.isLocked();
    }

    /** {@inheritDoc} For a RedLock: the lease a majority of the nodes still exceed. */
    @Override
    public Duration remainingLease() {
        return port.remainingLease();
    }

    @Override
    public long currentFencingToken() {
        H hold = liveHold();
        if (hold == null) {
            throw new IllegalMonitorStateException(
                    what + " '" + info.key() + "' is not held by the current thread: no fencing token");
        }
        return hold.token;
    }

    /** {@inheritDoc} For a RedLock: on every node that answers. */
    @Override
    public boolean forceUnlock() {
        return port.forceUnlock();
    }

    private @Nullable H liveHold() {
        H hold = port.hold(owner());
        return hold != null && hold.isLive(System.nanoTime()) ? hold : null;
    }

    @SuppressWarnings("deprecation") // Thread.getId: threadId() needs Java 19, we run on 17
    private String owner() {
        long thread = Thread.currentThread().getId();
        Owner last = lastOwner; // a lock is mostly used by one thread at a time: keep its id's text
        if (last != null && last.thread() == thread) {
            return last.id();
        }
        String id = port.clientId() + ':' + thread;
        lastOwner = new Owner(thread, id);
        return id;
    }

    /** The owner id of one thread; read and written without locking (immutable, a lost write only costs a miss). */
    private record Owner(long thread, String id) {}

    @Override
    public String toString() {
        return ("Lock".equals(what) ? "RedisLock" : what) + "[" + info.key() + "]";
    }
}
