package dev.distlock.core.internal.redlock;

import dev.distlock.core.LockException;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.internal.engine.RideOut;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.lease.LeaseKeeper;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.support.Durations;
import dev.distlock.core.internal.support.Events;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Acquires RedLocks for a {@link RedLockEngine}: rounds on every node until a majority grants, with a
 * short random back-off between rounds (cut short when this client releases a lock), blocking or on the
 * timer thread for handles. A granted round becomes a hold in the engine's table, watched by its lease
 * keeper; a refused one is released on every node.
 */
final class RedLockAcquirer {

    private final RedLockEngine engine;
    private final String clientId;
    private final RedLockQuorum nodes;
    private final int quorum;
    private final ScheduledExecutorService timers;
    private final Map<String, RedLockHold> holds;
    private final LeaseKeeper<RedLockHold> keeper;
    private final Events events;
    /** How long a {@code lock()} without a wait limit rides out rounds that no majority answers. */
    private final long operationTimeoutNanos;
    /** Numbers the acquisitions of this client; with the owner id they name a grant on every node. */
    private final AtomicLong requests = new AtomicLong();
    /** Async acquisitions not finished yet, each with its lock: close() fails them (their next round is dropped). */
    private final Map<CompletableFuture<@Nullable RedLockHold>, LockInfo> waiting = new ConcurrentHashMap<>();
    /** Signalled on every release by this client, so local waiters retry at once instead of after their back-off. */
    private final ReentrantLock wakeLock = new ReentrantLock();

    private final Condition released = wakeLock.newCondition();

    RedLockAcquirer(
            RedLockEngine engine,
            RedLockQuorum nodes,
            ScheduledExecutorService timers,
            Map<String, RedLockHold> holds,
            LeaseKeeper<RedLockHold> keeper,
            Events events,
            Duration operationTimeout) {
        this.engine = engine;
        this.operationTimeoutNanos = operationTimeout.toNanos();
        this.clientId = engine.clientId;
        this.nodes = nodes;
        this.quorum = nodes.majority;
        this.timers = timers;
        this.holds = holds;
        this.keeper = keeper;
        this.events = events;
    }

    /**
     * Acquires the lock for {@code owner}, retrying with a short random back-off until {@code wait}
     * is spent ({@code null}: for ever).
     *
     * @return the hold, or {@code null} when the wait ran out
     * @throws LockUnavailableException when fewer than a majority of nodes answered a round, and the wait
     *     ended (for ever: no majority answered for one operation timeout)
     */
    @Nullable
    RedLockHold acquire(
            LockInfo info,
            List<LockKeys> keys,
            String owner,
            @Nullable Duration wait,
            @Nullable Duration explicitLease,
            boolean interruptible)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = Durations.deadline(start, wait);
        Lease lease = Lease.of(explicitLease, keeper.watchdogLeaseMs());
        boolean interrupted = false;
        try {
            if (engine.isClosed()) {
                throw new LockException("The RedLockClient is closed: create a new one to take locks", null);
            }
            if (interruptible && Thread.interrupted()) {
                throw new InterruptedException("Interrupted before acquiring lock '" + info.key() + "'");
            }
            RedLockHold current = holds.get(RedLockEngine.holdId(info.key(), owner));
            if (current != null) {
                if (current.isLive(start)) {
                    current.reenter(); // re-entry keeps the lease and token of the first hold
                    return current;
                }
                supersede(current);
            }
            long silentSince = start; // the end of the last round a majority answered
            while (true) {
                // A grant id of its own for every round: a refused round is released everywhere, partly in
                // the background (a node slow to answer); sharing the id, such a late release could free
                // this owner's grant of a later round on that node.
                String grantId = Long.toString(requests.incrementAndGet());
                RedLockQuorum.Attempt attempt = nodes.acquire(keys, owner, grantId, lease.millis());
                if (attempt.granted()) {
                    return granted(info, keys, owner, Thread.currentThread(), grantId, attempt, lease, start);
                }
                if (attempt.answered() >= quorum) {
                    silentSince = System.nanoTime();
                } else if (!RideOut.roundTriedAgain(start, deadline, silentSince, operationTimeoutNanos)) {
                    throw nodes.noQuorum(info, attempt);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    events.acquire(info, AcquireOutcome.TIMEOUT, start);
                    return null;
                }
                long backOff = TimeUnit.MILLISECONDS.toNanos(
                        ThreadLocalRandom.current().nextLong(5, 40));
                interrupted |= backOff(Math.min(remaining, backOff), interruptible);
                if (engine.isClosed()) {
                    throw new LockException(
                            "The RedLockClient was closed while waiting for lock '" + info.key() + "'", null);
                }
            }
        } catch (InterruptedException | RuntimeException e) {
            events.failed(info, e, start);
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt(); // lock() is not interruptible: restore the flag for the caller
            }
        }
    }

    /** Records a granted round as {@code owner}'s hold: the hold table, the lease keeper, the acquire event. */
    private RedLockHold granted(
            LockInfo info,
            List<LockKeys> keys,
            String owner,
            @Nullable Thread thread,
            String grantId,
            RedLockQuorum.Attempt attempt,
            Lease lease,
            long start) {
        RedLockHold hold = new RedLockHold(
                info, keys, owner, thread, grantId, attempt.token(), lease, start, attempt.validUntilNanos());
        holds.put(RedLockEngine.holdId(info.key(), owner), hold);
        keeper.watch(hold);
        events.acquire(info, AcquireOutcome.ACQUIRED, start);
        return hold;
    }

    /** Sleeps until the back-off ends or this client releases a lock; returns whether an ignored interrupt came. */
    private boolean backOff(long nanos, boolean interruptible) throws InterruptedException {
        wakeLock.lock();
        try {
            released.awaitNanos(nanos);
            return false;
        } catch (InterruptedException e) {
            if (interruptible) {
                throw e;
            }
            return true;
        } finally {
            wakeLock.unlock();
        }
    }

    /** A hold its owner never released although it was lost or ran out: forget it, clean up in Redis. */
    private void supersede(RedLockHold stale) {
        keeper.lost(stale, "its lease had already run out when its owner locked again");
        stale.released = true;
        keeper.stop(stale);
        holds.remove(RedLockEngine.holdId(stale.info.key(), stale.owner), stale);
        nodes.release(stale.keys, stale.owner, stale.grantId, stale.lease().millis());
    }

    /**
     * Acquires for a handle (a new owner) without blocking a thread: rounds on every node, a short
     * random back-off between them on the timer thread, until the wait runs out. Cancelling the result
     * stops it; a round granted in that instant is released.
     */
    CompletableFuture<@Nullable RedLockHold> acquireAsync(
            LockInfo info, List<LockKeys> keys, @Nullable Duration wait, @Nullable Duration explicitLease) {
        long start = System.nanoTime();
        long deadline = Durations.deadline(start, wait);
        Lease lease = Lease.of(explicitLease, keeper.watchdogLeaseMs());
        String owner = clientId + ":h" + requests.incrementAndGet();
        CompletableFuture<@Nullable RedLockHold> result = new CompletableFuture<>();
        if (engine.isClosed()) {
            result.completeExceptionally(
                    new LockException("The RedLockClient is closed: create a new one to take locks", null));
            return result;
        }
        waiting.put(result, info);
        result.whenComplete((hold, error) -> {
            waiting.remove(result);
            if (error != null) {
                events.failed(info, RedisFailures.unwrap(error), start);
            }
        });
        // closed while it was being added, unseen by close(): the first round finds the client closed
        roundAsync(new AsyncRound(info, keys, owner, lease, start, deadline, start, result));
        return result;
    }

    private record AsyncRound(
            LockInfo info,
            List<LockKeys> keys,
            String owner,
            Lease lease,
            long start,
            long deadline,
            long silentSince,
            CompletableFuture<@Nullable RedLockHold> result) {

        /** This wait after a round that a majority answered at {@code now}. */
        AsyncRound answeredAt(long now) {
            return new AsyncRound(info, keys, owner, lease, start, deadline, now, result);
        }
    }

    private void roundAsync(AsyncRound r) {
        if (r.result().isDone()) {
            return;
        }
        if (engine.isClosed()) {
            r.result().completeExceptionally(closedWhileWaiting(r.info()));
            return;
        }
        String grantId = Long.toString(requests.incrementAndGet()); // one per round, as in acquire()
        nodes.acquireAsync(r.keys(), r.owner(), grantId, r.lease().millis()).whenComplete((attempt, error) -> {
            if (error != null) {
                r.result().completeExceptionally(RedisFailures.asLockException(error));
            } else if (attempt.granted()) {
                // Reported before the caller sees the hold (it may release at once): every grant is
                // reported acquired and then released once, this one too when it was cancelled meanwhile.
                RedLockHold hold = granted(r.info(), r.keys(), r.owner(), null, grantId, attempt, r.lease(), r.start());
                if (!r.result().complete(hold)) {
                    engine.releaseAsync(hold); // cancelled meanwhile: nobody would release it
                }
            } else if (attempt.answered() < quorum
                    && !RideOut.roundTriedAgain(r.start(), r.deadline(), r.silentSince(), operationTimeoutNanos)) {
                r.result().completeExceptionally(nodes.noQuorum(r.info(), attempt));
            } else if (r.deadline() - System.nanoTime() <= 0) {
                if (r.result().complete(null)) {
                    events.acquire(r.info(), AcquireOutcome.TIMEOUT, r.start());
                }
            } else {
                long backOff = Math.min(
                        TimeUnit.MILLISECONDS.toNanos(
                                ThreadLocalRandom.current().nextLong(5, 40)),
                        r.deadline() - System.nanoTime());
                AsyncRound next = attempt.answered() < quorum ? r : r.answeredAt(System.nanoTime());
                try {
                    timers.schedule(() -> roundAsync(next), backOff, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException e) {
                    r.result().completeExceptionally(closedWhileWaiting(r.info()));
                }
            }
        });
    }

    /** Wakes this client's waiters in their back-off: a lock of this client was released. */
    void wakeWaiters() {
        wakeLock.lock();
        try {
            released.signalAll();
        } finally {
            wakeLock.unlock();
        }
    }

    private static LockException closedWhileWaiting(LockInfo info) {
        return new LockException("The RedLockClient was closed while waiting for lock '" + info.key() + "'", null);
    }

    /** Fails every async acquisition still waiting: the client closed, and their next round would never run. */
    void failWaiting() {
        waiting.forEach((result, info) -> result.completeExceptionally(closedWhileWaiting(info)));
    }
}
