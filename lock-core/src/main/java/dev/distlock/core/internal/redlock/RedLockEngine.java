package dev.distlock.core.internal.redlock;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.internal.engine.RedisNode;
import dev.distlock.core.internal.lease.LeaseKeeper;
import dev.distlock.core.internal.lease.LeaseState;
import dev.distlock.core.internal.lock.LockPort;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.support.Events;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The RedLock client side over N independent masters: the holds and their release and renewal, with
 * the majority rule in {@link RedLockQuorum}; acquisition (rounds with back-off) is {@link RedLockAcquirer}'s. Lease keeping and events are the same {@link LeaseKeeper}
 * and {@link Events} a single Redis uses; the nodes are reached through {@link RedisNode} only.
 */
public final class RedLockEngine implements AutoCloseable {

    public final String clientId = UUID.randomUUID().toString();
    private final RedLockQuorum nodes;
    public final int quorum;
    private final ScheduledThreadPoolExecutor timers;
    private volatile boolean closed;

    private final Events events;
    private final LeaseKeeper<RedLockHold> keeper;

    private final ConcurrentHashMap<String, RedLockHold> holds = new ConcurrentHashMap<>();
    private final RedLockAcquirer acquirer;

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
        this.acquirer =
                new RedLockAcquirer(this, this.nodes, timers, holds, keeper, events, options.operationTimeout());
    }

    public int size() {
        return nodes.size();
    }

    List<LockKeys> keys(String name) {
        return nodes.keys(name);
    }

    /** One RedLock as this engine serves it to a lock object. */
    public LockPort<RedLockHold> port(LockInfo info) {
        return new RedLockPort(this, acquirer, info, keys(info.key()));
    }

    @Nullable
    RedLockHold hold(String name, String owner) {
        return holds.get(holdId(name, owner));
    }

    /** The TTL a majority of nodes agree the lock has at least: -1 when free on a majority. */
    long majorityTtl(List<LockKeys> keys) {
        return nodes.majorityTtl(keys, keeper.watchdogLeaseMs());
    }

    /** Deletes the lock on every node whoever holds it, and wakes this client's waiters; whether one was deleted. */
    boolean forceRelease(List<LockKeys> keys) {
        boolean deleted = nodes.forceRelease(keys, keeper.watchdogLeaseMs());
        acquirer.wakeWaiters();
        return deleted;
    }

    /** How a hold already marked lost was lost: a fixed lease is not renewed, a watchdog hold is lost by the nodes or a close. */
    private LockLeaseExpiredException.Loss lossOf(RedLockHold hold) {
        if (closed) {
            return LockLeaseExpiredException.Loss.CLIENT_CLOSED;
        }
        return hold.watchdog() ? LockLeaseExpiredException.Loss.KEY_LOST : LockLeaseExpiredException.Loss.LEASE_RAN_OUT;
    }

    /**
     * Releases one hold count; the last releases the lock on every node.
     *
     * @throws LockLeaseExpiredException when the hold was lost or its lease ran out before this call
     * @throws LockUnavailableException when fewer than a majority of nodes answered (the lock expires with its lease)
     */
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
                        acquirer.wakeWaiters();
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

    public int activeHolds() {
        return LeaseState.live(holds.values());
    }

    public List<HeldLock> heldLocks() {
        return LeaseState.snapshot(holds.values());
    }

    static String holdId(String name, String owner) {
        return name + '\n' + owner;
    }

    @Override
    public void close() {
        closed = true;
        keeper.close();
        timers.shutdownNow(); // drops the next round of every async wait in its back-off: fail those waits
        acquirer.failWaiting();
        acquirer.wakeWaiters();
    }

    boolean isClosed() {
        return closed;
    }
}
