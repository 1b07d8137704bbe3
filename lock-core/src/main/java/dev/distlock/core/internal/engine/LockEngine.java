package dev.distlock.core.internal.engine;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisSemaphore;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.lease.LeaseKeeper;
import dev.distlock.core.internal.lease.LeaseState;
import dev.distlock.core.internal.lock.LockPort;
import dev.distlock.core.internal.lock.PortSemaphore;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.RedisCalls;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.redis.RedisPort;
import dev.distlock.core.internal.redis.WakeupHub;
import dev.distlock.core.internal.support.Durations;
import dev.distlock.core.internal.support.Events;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Coordinates the locks of one client on one {@link RedisPort} (Redis, or local mode's store): acquisition
 * ({@link Acquirer}, {@link AsyncAcquisition}, through {@link AcquireSteps} and {@link Grants}), release
 * ({@link Releaser}), the {@link HoldTable}, leases ({@link LeaseKeeper}), events ({@link Events}).
 */
public final class LockEngine implements AutoCloseable {

    public final String clientId = UUID.randomUUID().toString();
    private final RedisPort redis;
    private final WakeupHub hub;
    private final ScheduledThreadPoolExecutor timers;
    private final ThreadPoolExecutor handOffs;
    private final RedisCalls calls;
    /** Feeds reconnect failures to {@link #calls}, so a call timing out in an outage carries its cause. */
    private final Runnable stopConnectionEvents;

    private final RedisNode node;
    private final HoldTable holds = new HoldTable();
    private final Events events;
    private final LeaseKeeper<Hold> keeper;
    private final AcquireSteps steps;
    private final Grants grants;
    private final Acquirer acquirer;
    private final Releaser releaser;
    private final Runnable stopEvictionCheck;
    /** Numbers the handles of this client: each is an owner of its own. */
    private final AtomicLong handles = new AtomicLong();

    public LockEngine(RedisPort redis, LockClientOptions options) {
        if (options.replicaAcks() > 0 && !redis.acknowledgesReplicas()) {
            redis.close();
            throw new IllegalArgumentException(
                    "replicaAcks needs a standalone or Sentinel Redis: on Redis Cluster, WAIT cannot"
                            + " target the node that holds each lock; set replicaAcks to 0");
        }
        this.redis = redis;
        this.timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "distlock-timer-" + clientId.substring(0, 8));
            t.setDaemon(true);
            return t;
        });
        timers.setRemoveOnCancelPolicy(true);
        this.hub = new WakeupHub(redis, clientId, timers);
        this.calls = new RedisCalls(options.operationTimeout().toNanos(), redis.minStepNanos(), timers);
        this.stopConnectionEvents =
                redis.onConnectionEvents(calls::connectionFailed, () -> calls.connectionFailed(null));
        this.node = new RedisNode(redis, calls, hub, holds, options);
        this.events = new Events(options.listeners());
        this.keeper = new LeaseKeeper<>("Lock", timers, options, events, holds::all, this::renew);
        // Threads made as hand-offs to handles need them, kept 30 s: no thread made per hand-off.
        this.handOffs =
                new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "distlock-handoff-" + clientId.substring(0, 8));
                    t.setDaemon(true);
                    return t;
                });
        this.steps = new AcquireSteps(node, calls, hub, holds, keeper, events, options, handOffs);
        this.grants = new Grants(node, calls, holds, keeper, events, options);
        this.acquirer = new Acquirer(steps, grants, node, calls, holds, options);
        this.releaser = new Releaser(node, calls, holds, keeper, events, options);
        this.stopEvictionCheck =
                redis.checkEvictionPolicy(options.operationTimeout().toNanos());
    }

    LockKeys keys(String name) {
        return node.keys(name);
    }

    /** This Redis as a RedLock node. */
    public RedisNode node() {
        return node;
    }

    /**
     * Acquires {@code target} for {@code owner}.
     *
     * @return the hold, or {@code null} when the wait ran out
     */
    @Nullable
    Hold acquire(
            LockTarget target, String owner, @Nullable Duration wait, @Nullable Duration lease, boolean interruptible)
            throws InterruptedException {
        LockKind kind = target.kind();
        LockInfo info = target.info();
        LockKeys keys = target.keys();
        long start = System.nanoTime();
        AcquireRequest request = new AcquireRequest(
                kind,
                info,
                keys,
                owner,
                Thread.currentThread(),
                Lease.of(lease, keeper.watchdogLeaseMs()),
                interruptible,
                start);
        long deadline = Durations.deadline(start, wait);
        try {
            if (calls.isClosed()) {
                throw calls.closedException();
            }
            kind.checkAcquire(holds, info, keys, owner);
            // As java.util.concurrent.locks.Lock specifies: a pending interrupt fails even a free lock.
            if (interruptible && Thread.interrupted()) {
                throw new InterruptedException("Interrupted before acquiring lock '" + info.key() + "'");
            }
            Hold current = holds.get(kind, keys, owner);
            if (!kind.localQueue() || (current != null && current.isLive(start))) {
                // Shared kinds never queue locally; re-entry already passed the local gate.
                return acquirer.acquire(request, deadline);
            }
            return acquirer.throughGate(request, deadline);
        } catch (InterruptedException | RuntimeException e) {
            events.failed(info, e, start);
            throw e;
        }
    }

    /** One lock of {@code kind} as this engine serves it to a lock object. */
    public LockPort<Hold> port(LockKind kind, LockInfo info) {
        return new EngineLockPort(this, kind, info, keys(info.key()));
    }

    /** The hold {@code owner} has on {@code keys} in this client, or {@code null}. */
    @Nullable
    Hold hold(LockKind kind, LockKeys keys, String owner) {
        return holds.get(kind, keys, owner);
    }

    /**
     * Acquires for a handle (a new owner) without blocking a thread; see {@link AsyncAcquisition#start}.
     */
    CompletableFuture<@Nullable Hold> acquireAsync(
            LockTarget target, @Nullable Duration wait, @Nullable Duration lease) {
        long start = System.nanoTime();
        AcquireRequest request = new AcquireRequest(
                target.kind(),
                target.info(),
                target.keys(),
                clientId + ":h" + handles.incrementAndGet(),
                null,
                Lease.of(lease, keeper.watchdogLeaseMs()),
                true,
                start);
        if (calls.isClosed()) {
            return CompletableFuture.failedFuture(calls.closedException());
        }
        long deadline = Durations.deadline(start, wait);
        return AsyncAcquisition.start(steps, grants, holds, request, deadline, timers);
    }

    /**
     * Releases one hold count; see {@link Releaser#release}.
     *
     * @throws LockLeaseExpiredException when the hold was lost or its lease ran out
     * @throws LockUnavailableException when Redis did not confirm the release within the operation timeout
     */
    void release(Hold hold, Duration holdAtLeast) {
        releaser.release(hold, holdAtLeast);
    }

    /** {@link #release} without blocking. */
    CompletableFuture<Void> releaseAsync(Hold hold, Duration holdAtLeast) {
        return releaser.releaseAsync(hold, holdAtLeast);
    }

    /** One watchdog renewal, bounded by one watchdog period: a renewal still unanswered then is cancelled, the next round sends another. */
    private CompletableFuture<LeaseKeeper.Renewal> renew(Hold hold, long leaseMs) {
        CompletableFuture<Long> renewal = node.renew(hold.kind, hold.keys, hold.redisOwner, hold.grantId, leaseMs);
        long bound = Math.min(calls.operationTimeoutNanos(), TimeUnit.MILLISECONDS.toNanos(Math.max(1, leaseMs / 3)));
        return renewal.orTimeout(bound, TimeUnit.NANOSECONDS).handle((result, error) -> {
            if (error != null) {
                renewal.cancel(true);
                return LeaseKeeper.Renewal.failed("Redis did not answer: " + RedisFailures.unwrap(error));
            }
            return result == 1L
                    ? LeaseKeeper.Renewal.renewed(TimeUnit.MILLISECONDS.toNanos(leaseMs))
                    : LeaseKeeper.Renewal.lost(
                            "renewal found the lock gone, or held by another owner or another grant");
        });
    }

    boolean isLocked(LockKeys keys) {
        return calls.call(() -> node.exists(keys), calls.operationDeadline(), "checking", keys) > 0;
    }

    /** A semaphore of {@code permits} named by {@code info}; see {@link PortSemaphore}. */
    public RedisSemaphore semaphore(LockInfo info, int permits, boolean fair) {
        PortSemaphore.requirePermits(permits, info.key());
        return new PortSemaphore<>(
                info.key(),
                permits,
                fair,
                n -> port(SemaphoreKind.of(permits, n, fair), info),
                () -> usedPermits(info.key()));
    }

    private int usedPermits(String name) {
        LockKeys keys = keys(name);
        long used =
                calls.call(() -> node.usedPermits(keys), calls.operationDeadline(), "counting the permits of", keys);
        return (int) used;
    }

    Duration remainingLease(LockKeys keys) {
        long ttl = calls.call(() -> node.pttl(keys), calls.operationDeadline(), "reading the lease of", keys);
        return ttl > 0 ? Duration.ofMillis(ttl) : Duration.ZERO;
    }

    boolean forceRelease(LockKind kind, LockKeys keys) {
        String request = node.requestId();
        long result = calls.call(
                () -> node.forceRelease(keys, kind.wakesAllOnRelease(), request),
                calls.operationDeadline(),
                "force-releasing",
                keys);
        if (result == 1) {
            // Holders in this client learn it now; those of other clients at their next renewal or unlock.
            for (Hold hold : holds.all()) {
                if (hold.keys.lock().equals(keys.lock()) && !hold.released) {
                    hold.forceUnlocked = true;
                    keeper.lost(hold, "it was force-unlocked");
                }
            }
        }
        node.wakeLocal(kind, keys);
        return result == 1;
    }

    /** Holds of this client that are still valid. */
    public int activeHolds() {
        return LeaseState.live(holds.all());
    }

    public List<HeldLock> heldLocks() {
        return LeaseState.snapshot(holds.all());
    }

    public int subscribedChannels() {
        return hub.subscribedChannels();
    }

    /** Lock names with a local gate in use (for tests). */
    public int localGates() {
        return holds.gates();
    }

    /** Threads queued in front of Redis at a local gate (for tests). */
    public int localWaiters() {
        return holds.waiting();
    }

    /** Stops the watchdog and closes the connections; waiters wake with a {@link LockException}, as later calls fail. */
    @Override
    public void close() {
        stopConnectionEvents.run();
        stopEvictionCheck.run();
        calls.close();
        holds.close();
        hub.wakeAll();
        keeper.close();
        timers.shutdownNow();
        handOffs.shutdown();
        redis.close();
    }
}
