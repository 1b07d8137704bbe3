package dev.distlock.core.internal.redlock;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.internal.engine.RedisNode;
import dev.distlock.core.internal.engine.RideOut;
import dev.distlock.core.internal.engine.Want;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.lease.LeaseKeeper;
import dev.distlock.core.internal.lock.HoldAtLeast;
import dev.distlock.core.internal.lock.LockPort;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.support.Durations;
import dev.distlock.core.internal.support.Events;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The RedLock client side over N independent masters: holds, retries with back-off, with the
 * majority rule in {@link RedLockQuorum}. Lease keeping and events are the same {@link LeaseKeeper}
 * and {@link Events} a single Redis uses; the nodes are reached through {@link RedisNode} only.
 */
public final class RedLockEngine implements AutoCloseable {

    public final String clientId = UUID.randomUUID().toString();
    private final RedLockQuorum nodes;
    public final int quorum;
    private final ScheduledThreadPoolExecutor timers;
    private volatile boolean closed;
    /** Async acquisitions not finished yet, each with its lock: close() fails them (their next round is dropped). */
    private final Map<CompletableFuture<@Nullable RedLockHold>, LockInfo> waiting = new ConcurrentHashMap<>();

    private final Events events;
    private final LeaseKeeper<RedLockHold> keeper;
    /** Numbers the acquisitions of this client; with the owner id they name a grant on every node. */
    private final AtomicLong requests = new AtomicLong();

    private final ConcurrentHashMap<String, RedLockHold> holds = new ConcurrentHashMap<>();
    /** Signalled on every release by this client, so local waiters retry at once instead of after their back-off. */
    private final ReentrantLock wakeLock = new ReentrantLock();

    private final Condition released = wakeLock.newCondition();

    public RedLockEngine(List<RedisNode> nodes, LockClientOptions options) {
        this.nodes = new RedLockQuorum(nodes);
        this.quorum = this.nodes.majority;
        this.timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "distlock-redlock-watchdog-" + clientId.substring(0, 8));
            t.setDaemon(true);
            return t;
        });
        timers.setRemoveOnCancelPolicy(true);
        this.events = new Events(options.listeners());
        this.keeper = new LeaseKeeper<>("RedLock", timers, options, events, holds::values, this::renew);
    }

    public int size() {
        return nodes.size();
    }

    List<LockKeys> keys(String name) {
        return nodes.keys(name);
    }

    /** One RedLock as this engine serves it to a lock object. */
    public LockPort<RedLockHold> port(LockInfo info) {
        List<LockKeys> keys = keys(info.key());
        return new LockPort<>() {
            @Override
            public String clientId() {
                return clientId;
            }

            @Override
            public @Nullable RedLockHold acquire(
                    String owner, @Nullable Duration wait, @Nullable Duration lease, boolean interruptible)
                    throws InterruptedException {
                return RedLockEngine.this.acquire(info, keys, owner, new Want(wait, lease, interruptible));
            }

            @Override
            public CompletableFuture<@Nullable RedLockHold> acquireAsync(
                    @Nullable Duration wait, @Nullable Duration lease) {
                return RedLockEngine.this.acquireAsync(info, keys, wait, lease);
            }

            @Override
            public CompletableFuture<Void> releaseAsync(RedLockHold hold, Duration holdAtLeast) {
                checkHoldAtLeast(holdAtLeast);
                return RedLockEngine.this.releaseAsync(hold);
            }

            @Override
            public @Nullable RedLockHold hold(String owner) {
                return holds.get(holdId(info.key(), owner));
            }

            @Override
            public void release(RedLockHold hold, Duration holdAtLeast) {
                checkHoldAtLeast(holdAtLeast);
                RedLockEngine.this.release(hold);
            }

            @Override
            public void checkHoldAtLeast(Duration holdAtLeast) {
                if (!holdAtLeast.isZero()) {
                    throw HoldAtLeast.unsupported(info);
                }
            }

            @Override
            public boolean isLocked() {
                return nodes.majorityTtl(keys, keeper.watchdogLeaseMs()) != -1;
            }

            @Override
            public Duration remainingLease() {
                long ttl = nodes.majorityTtl(keys, keeper.watchdogLeaseMs());
                return ttl > 0 ? Duration.ofMillis(ttl) : Duration.ZERO;
            }

            @Override
            public boolean forceUnlock() {
                boolean deleted = nodes.forceRelease(keys, keeper.watchdogLeaseMs());
                wakeLocalWaiters();
                return deleted;
            }
        };
    }

    /**
     * Acquires the lock for {@code owner}, retrying with a short random back-off until {@code wait}
     * is spent ({@code null}: for ever).
     *
     * @return the hold, or {@code null} when the wait ran out
     * @throws LockUnavailableException when fewer than a majority of nodes answered
     */
    @Nullable
    RedLockHold acquire(LockInfo info, List<LockKeys> keys, String owner, Want want) throws InterruptedException {
        Duration wait = want.waitTime();
        Duration explicitLease = want.lease();
        boolean interruptible = want.interruptible();
        long start = System.nanoTime();
        long deadline = Durations.deadline(start, wait);
        Lease lease = Lease.of(explicitLease, keeper.watchdogLeaseMs());
        boolean interrupted = false;
        try {
            if (closed) {
                throw new LockException("The RedLockClient is closed: create a new one to take locks", null);
            }
            if (interruptible && Thread.interrupted()) {
                throw new InterruptedException("Interrupted before acquiring lock '" + info.key() + "'");
            }
            RedLockHold current = holds.get(holdId(info.key(), owner));
            if (current != null) {
                if (current.isLive(start)) {
                    current.reenter(); // re-entry keeps the lease and token of the first hold
                    return current;
                }
                supersede(current);
            }
            while (true) {
                // A grant id of its own for every round: a refused round is released everywhere, partly in
                // the background (a node slow to answer); sharing the id, such a late release could free
                // this owner's grant of a later round on that node.
                String grantId = Long.toString(requests.incrementAndGet());
                RedLockQuorum.Attempt attempt = nodes.acquire(keys, owner, grantId, lease.millis());
                if (attempt.granted()) {
                    RedLockHold hold = new RedLockHold(
                            info,
                            keys,
                            owner,
                            Thread.currentThread(),
                            grantId,
                            attempt.token(),
                            lease,
                            start,
                            attempt.validUntilNanos());
                    holds.put(holdId(info.key(), owner), hold);
                    keeper.watch(hold);
                    events.acquire(info, AcquireOutcome.ACQUIRED, start);
                    return hold;
                }
                if (attempt.answered() < quorum && !RideOut.silenceRiddenOut(start, deadline)) {
                    throw new LockUnavailableException(
                            "RedLock '" + info.key() + "': only " + attempt.answered() + " of " + nodes.size()
                                    + " Redis nodes answered, a majority of " + quorum
                                    + " is needed; check that the nodes are up"
                                    + " and reachable",
                            attempt.error());
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    events.acquire(info, AcquireOutcome.TIMEOUT, start);
                    return null;
                }
                long backOff = TimeUnit.MILLISECONDS.toNanos(
                        ThreadLocalRandom.current().nextLong(5, 40));
                interrupted |= backOff(Math.min(remaining, backOff), interruptible);
                if (closed) {
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
        holds.remove(holdId(stale.info.key(), stale.owner), stale);
        nodes.release(stale.keys, stale.owner, stale.grantId, stale.lease().millis());
    }

    /**
     * Releases one hold count; the last releases the lock on every node.
     *
     * @throws LockLeaseExpiredException when the hold was lost or its lease ran out before this call
     * @throws LockUnavailableException when fewer than a majority of nodes answered (the lock expires with its lease)
     */
    /** How a hold already marked lost was lost: a fixed lease is not renewed, a watchdog hold is lost by the nodes or a close. */
    private LockLeaseExpiredException.Loss lossOf(RedLockHold hold) {
        if (closed) {
            return LockLeaseExpiredException.Loss.CLIENT_CLOSED;
        }
        return hold.watchdog() ? LockLeaseExpiredException.Loss.KEY_LOST : LockLeaseExpiredException.Loss.LEASE_RAN_OUT;
    }

    void release(RedLockHold hold) {
        RedisFailures.join(releaseAsync(hold));
    }

    /** {@link #release} without blocking. */
    CompletableFuture<Void> releaseAsync(RedLockHold hold) {
        long now = System.nanoTime();
        String lostBefore = hold.lostReason();
        if (lostBefore == null && !hold.released && hold.runOut(now)) {
            keeper.lost(hold, "its " + hold.lease().describe() + " ran out before unlock");
        }
        String lost = hold.lostReason();
        if (hold.exit() > 0) {
            return lost != null
                    ? CompletableFuture.failedFuture(new LockLeaseExpiredException(hold.info.key(), lost, lossOf(hold)))
                    : CompletableFuture.completedFuture(null);
        }
        // Before the scripts run: a renewal reply that finds the lock gone must not count as a loss.
        hold.released = true;
        keeper.stop(hold);
        holds.remove(holdId(hold.info.key(), hold.owner), hold);
        return nodes.releaseAsync(
                        hold.keys, hold.owner, hold.grantId, hold.lease().millis())
                .handle((replies, error) -> {
                    try {
                        if (error != null) {
                            throw RedisFailures.asLockException(error);
                        }
                        if (lost != null) {
                            throw new LockLeaseExpiredException(hold.info.key(), lost, lossOf(hold));
                        }
                        int notHeld = NodeCalls.count(replies, -1L);
                        if (nodes.size() - notHeld < quorum) {
                            keeper.lost(
                                    hold,
                                    "only " + (nodes.size() - notHeld) + " of " + nodes.size()
                                            + " nodes still had it at unlock");
                            throw new LockLeaseExpiredException(
                                    hold.info.key(),
                                    hold.lostReason(),
                                    hold.watchdog() || System.nanoTime() - hold.validUntilNanos < 0
                                            ? LockLeaseExpiredException.Loss.KEY_LOST
                                            : LockLeaseExpiredException.Loss.LEASE_RAN_OUT);
                        }
                        int answered = NodeCalls.answered(replies);
                        if (answered < quorum) {
                            throw new LockUnavailableException(
                                    "RedLock '" + hold.info.key() + "': unlock reached only " + answered + " of "
                                            + nodes.size()
                                            + " Redis nodes; the others let the lock expire with its lease",
                                    NodeCalls.firstError(replies));
                        }
                        events.release(hold.info, hold.heldFor(System.nanoTime()));
                        return null;
                    } finally {
                        wakeLocalWaiters();
                    }
                });
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
        if (closed) {
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
        roundAsync(new AsyncRound(info, keys, owner, lease, start, deadline, result));
        return result;
    }

    private record AsyncRound(
            LockInfo info,
            List<LockKeys> keys,
            String owner,
            Lease lease,
            long start,
            long deadline,
            CompletableFuture<@Nullable RedLockHold> result) {}

    private void roundAsync(AsyncRound r) {
        if (r.result().isDone()) {
            return;
        }
        if (closed) {
            r.result().completeExceptionally(closedWhileWaiting(r.info()));
            return;
        }
        String grantId = Long.toString(requests.incrementAndGet()); // one per round, as in acquire()
        nodes.acquireAsync(r.keys(), r.owner(), grantId, r.lease().millis()).whenComplete((attempt, error) -> {
            if (error != null) {
                r.result().completeExceptionally(RedisFailures.asLockException(error));
            } else if (attempt.granted()) {
                RedLockHold hold = new RedLockHold(
                        r.info(),
                        r.keys(),
                        r.owner(),
                        null,
                        grantId,
                        attempt.token(),
                        r.lease(),
                        r.start(),
                        attempt.validUntilNanos());
                holds.put(holdId(r.info().key(), r.owner()), hold);
                keeper.watch(hold);
                // Reported before the caller sees the hold (it may release at once): every grant is
                // reported acquired and then released once, this one too when it was cancelled meanwhile.
                events.acquire(r.info(), AcquireOutcome.ACQUIRED, r.start());
                if (!r.result().complete(hold)) {
                    releaseAsync(hold); // cancelled meanwhile: nobody would release it
                }
            } else if (attempt.answered() < quorum && !RideOut.silenceRiddenOut(r.start(), r.deadline())) {
                r.result()
                        .completeExceptionally(new LockUnavailableException(
                                "RedLock '" + r.info().key() + "': only "
                                        + attempt.answered() + " of " + nodes.size()
                                        + " Redis nodes answered, a majority of " + quorum
                                        + " is needed; check that the nodes are up and reachable",
                                attempt.error()));
            } else if (r.deadline() - System.nanoTime() <= 0) {
                if (r.result().complete(null)) {
                    events.acquire(r.info(), AcquireOutcome.TIMEOUT, r.start());
                }
            } else {
                long backOff = Math.min(
                        TimeUnit.MILLISECONDS.toNanos(
                                ThreadLocalRandom.current().nextLong(5, 40)),
                        r.deadline() - System.nanoTime());
                try {
                    timers.schedule(() -> roundAsync(r), backOff, TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException e) {
                    r.result().completeExceptionally(closedWhileWaiting(r.info()));
                }
            }
        });
    }

    /** Renews a watchdog hold on every node; renewed when a majority renewed, lost when fewer than a majority still have it. */
    private CompletableFuture<LeaseKeeper.Renewal> renew(RedLockHold hold, long leaseMs) {
        return nodes.renew(hold.keys, hold.owner, hold.grantId, leaseMs).thenApply(replies -> {
            int renewed = NodeCalls.count(replies, 1L);
            int gone = NodeCalls.count(replies, 0L);
            if (renewed >= quorum) {
                return LeaseKeeper.Renewal.renewed(
                        TimeUnit.MILLISECONDS.toNanos(leaseMs) - RedLockQuorum.driftNanos(leaseMs));
            }
            if (nodes.size() - gone < quorum) {
                return LeaseKeeper.Renewal.lost("renewal found it on only " + renewed + " of " + nodes.size()
                        + " nodes, fewer than a majority of " + quorum);
            }
            return LeaseKeeper.Renewal.failed("only " + renewed + " of " + nodes.size() + " nodes renewed it ("
                    + NodeCalls.firstError(replies) + ")");
        });
    }

    private void wakeLocalWaiters() {
        wakeLock.lock();
        try {
            released.signalAll();
        } finally {
            wakeLock.unlock();
        }
    }

    public int activeHolds() {
        return LeaseKeeper.live(holds.values());
    }

    public List<HeldLock> heldLocks() {
        return LeaseKeeper.snapshot(holds.values());
    }

    private static String holdId(String name, String owner) {
        return name + '\n' + owner;
    }

    private static LockException closedWhileWaiting(LockInfo info) {
        return new LockException("The RedLockClient was closed while waiting for lock '" + info.key() + "'", null);
    }

    @Override
    public void close() {
        closed = true;
        keeper.close();
        timers.shutdownNow(); // drops the next round of every async wait in its back-off: fail those waits
        waiting.forEach((result, info) -> result.completeExceptionally(closedWhileWaiting(info)));
        wakeLocalWaiters();
    }
}
