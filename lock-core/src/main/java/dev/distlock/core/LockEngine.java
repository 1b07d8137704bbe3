package dev.distlock.core;

import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.pubsub.WakeupHub;
import dev.distlock.core.pubsub.WakeupHub.WaitChannel;
import dev.distlock.core.script.LockScript;
import dev.distlock.core.script.ScriptRunner;
import dev.distlock.core.watchdog.LeaseWatchdog;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The machinery behind every lock of one client: runs the scripts, waits through the wake-up hub,
 * keeps the holds this client owns for the watchdog, and reports events. Owners are plain strings,
 * so thread-bound locks and (later) handle-bound async holds share it.
 */
final class LockEngine implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LockEngine.class);

    final String clientId = UUID.randomUUID().toString();
    private final LockClientOptions options;
    private final RedisConnections redis;
    private final ScriptRunner scripts;
    private final WakeupHub hub;
    private final LeaseWatchdog watchdog;
    private static final Duration FOREVER = Duration.ofDays(365L * 100);

    private final ConcurrentHashMap<String, Hold> holds = new ConcurrentHashMap<>();
    private final LocalGates gates = new LocalGates();
    private final long watchdogLeaseMs;
    private final String watchdogLeaseArg;
    private final String fenceTtlArg;

    LockEngine(RedisConnections redis, LockClientOptions options) {
        if (options.replicaAcks() > 0 && redis.base == null) {
            redis.close();
            throw new IllegalArgumentException("replicaAcks needs a standalone or Sentinel Redis: on Redis Cluster, WAIT cannot"
                    + " target the node that holds each lock; set replicaAcks to 0");
        }
        this.options = options;
        this.redis = redis;
        this.scripts = new ScriptRunner(redis.scripting);
        this.hub = new WakeupHub(redis.pubSub, clientId);
        this.watchdogLeaseMs = options.watchdogLease().toMillis();
        this.watchdogLeaseArg = Long.toString(watchdogLeaseMs);
        this.fenceTtlArg = Long.toString(options.fencingCounterTtl().toMillis());
        this.watchdog = new LeaseWatchdog(clientId, options.watchdogLease(), this::leases);
    }

    LockKeys keys(String name) {
        return LockKeys.of(options.keyPrefix(), name);
    }

    /**
     * Acquires {@code keys} for {@code owner}.
     *
     * @param wait how long to wait; {@code null} waits for ever
     * @param lease explicit lease, or {@code null} for the watchdog lease
     * @return the hold, or {@code null} when the wait ran out
     */
    Hold acquire(LockKind kind, LockInfo info, LockKeys keys, String owner, Duration wait, Duration lease, boolean interruptible)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = deadline(start, wait);
        long leaseMs = lease == null ? watchdogLeaseMs : lease.toMillis();
        String leaseArg = lease == null ? watchdogLeaseArg : Long.toString(leaseMs);
        try {
            kind.checkAcquire(this, info, keys, owner);
            // As java.util.concurrent.locks.Lock specifies: a pending interrupt fails even a free lock.
            if (interruptible && Thread.interrupted()) {
                throw new InterruptedException("Interrupted before acquiring lock '" + info.name() + "'");
            }
            String id = holdId(kind, keys, owner);
            Hold current = holds.get(id);
            if (!kind.localQueue() || (current != null && current.isLive(start))) {
                // Shared kinds never queue locally; re-entry already passed the local gate.
                return acquireInRedis(kind, info, keys, owner, deadline, leaseMs, leaseArg, lease == null, start, interruptible);
            }
            String gateId = gateId(kind, keys);
            LocalGates.Gate gate = gates.join(gateId);
            LocalGates.Pass pass = LocalGates.Pass.TIMEOUT;
            Hold hold = null;
            try {
                pass = gate.enter(deadline, interruptible);
                if (pass == LocalGates.Pass.TIMEOUT) {
                    return timedOut(info, start);
                }
                hold = acquireInRedis(kind, info, keys, owner, deadline, leaseMs, leaseArg, lease == null, start, interruptible);
                return hold;
            } finally {
                if (hold != null && hold.gate == null) {
                    hold.ownsPermit = pass == LocalGates.Pass.PERMIT;
                    hold.gate = gate;
                    if (hold.ownsPermit) {
                        gate.holder = hold;
                    }
                } else {
                    if (pass == LocalGates.Pass.PERMIT) {
                        gate.exit();
                    }
                    gates.leave(gateId, gate);
                }
            }
        } catch (InterruptedException | RuntimeException e) {
            fire(l -> l.onAcquire(info, AcquireOutcome.ERROR, Duration.ofNanos(System.nanoTime() - start)));
            throw e;
        }
    }

    /** Tries in Redis, then waits for wake-ups (each sleep bounded by the holder's TTL) until {@code deadline}. */
    private Hold acquireInRedis(LockKind kind, LockInfo info, LockKeys keys, String owner, long deadline, long leaseMs,
            String leaseArg, boolean watchdog, long start, boolean interruptible) throws InterruptedException {
        Grant grant = attempt(kind, keys, owner, leaseArg, deadline);
        if (grant.granted) {
            return granted(kind, info, keys, owner, grant, leaseMs, watchdog, start);
        }
        if (deadline - System.nanoTime() <= 0) {
            kind.gaveUp(scripts, keys, owner);
            return timedOut(info, start);
        }
        WaitChannel channel = hub.join(kind.waitChannel(keys, owner));
        boolean acquired = false;
        try {
            awaitSubscription(channel, deadline, keys, interruptible);
            while (true) {
                if (interruptible && Thread.interrupted()) {
                    throw new InterruptedException("Interrupted while waiting for lock '" + info.name() + "'");
                }
                grant = attempt(kind, keys, owner, leaseArg, deadline);
                if (grant.granted) {
                    acquired = true;
                    return granted(kind, info, keys, owner, grant, leaseMs, watchdog, start);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return timedOut(info, start);
                }
                // The holder's TTL bounds the sleep: a lost wake-up or a crashed holder cannot stall us.
                // PTTL 0 is the lease's last millisecond (expiry publishes nothing): look again right after it.
                // Only a key without TTL (-1) falls back to a whole watchdog lease.
                long ttlMs = grant.ttlMs() >= 0 ? Math.max(1, grant.ttlMs()) : watchdogLeaseMs;
                long ttl = TimeUnit.MILLISECONDS.toNanos(ttlMs);
                channel.await(Math.min(ttl, remaining), interruptible);
            }
        } finally {
            hub.leave(channel);
            if (!acquired) {
                kind.gaveUp(scripts, keys, owner);
            }
        }
    }

    /** {@code null} or a wait too long to count in nanoseconds waits for ever. */
    private static long deadline(long start, Duration wait) {
        if (wait == null || wait.compareTo(FOREVER) >= 0) {
            return start + Long.MAX_VALUE / 2;
        }
        return start + wait.toNanos();
    }

    private void awaitSubscription(WaitChannel channel, long deadline, LockKeys keys, boolean interruptible)
            throws InterruptedException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    channel.subscribed().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return;
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true; // lock() is not interruptible: keep waiting, restore the flag after
                } catch (TimeoutException | ExecutionException e) {
                    // Waiting still works without it: every sleep is bounded by the holder's TTL.
                    log.debug("Subscription to {} not confirmed: {}", keys.channel(), e.toString());
                    return;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private Grant attempt(LockKind kind, LockKeys keys, String owner, String leaseArg, long deadline) {
        long waitMs = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        List<Object> reply = await(kind.acquire(scripts, keys, owner, leaseArg, fenceTtlArg, waitMs), "acquiring", keys);
        if ((Long) reply.get(0) == 1L && (Long) reply.get(2) == 1L && options.replicaAcks() > 0) {
            confirmReplicated(kind, keys, owner);
        }
        return new Grant((Long) reply.get(0) == 1L, (Long) reply.get(1), (Long) reply.get(2));
    }

    /** WAIT for the configured replicas after a new grant; give the grant back when too few acknowledge. */
    private void confirmReplicated(LockKind kind, LockKeys keys, String owner) {
        long acked = await(redis.base.waitForReplication(options.replicaAcks(), options.replicaAckTimeout().toMillis())
                .toCompletableFuture(), "waiting for replicas of", keys);
        if (acked < options.replicaAcks()) {
            await(kind.release(scripts, keys, owner, hub.message(kind.wakesAllOnRelease())), "giving back", keys);
            throw new LockException("Lock " + keys.lock() + " was granted but only " + acked + " of " + options.replicaAcks()
                    + " replica(s) acknowledged it within " + options.replicaAckTimeout().toMillis()
                    + " ms, so it was given back: check the replicas, or lower replicaAcks", null);
        }
    }

    private Hold granted(LockKind kind, LockInfo info, LockKeys keys, String owner, Grant grant, long leaseMs, boolean watchdog,
            long start) {
        long now = System.nanoTime();
        String id = holdId(kind, keys, owner);
        Hold existing = holds.get(id);
        if (grant.count > 1 && existing != null && existing.token == grant.token() && !existing.released
                && existing.lostReason() == null) {
            existing.reentered(leaseMs, now);
            return existing;
        }
        Hold hold = new Hold(kind, info, keys, owner, grant.token(), (int) grant.count, leaseMs, watchdog, now);
        if (existing != null && !existing.released) {
            // Redis granted afresh although this owner had a hold: that hold expired there. It is superseded;
            // the new hold takes over its place in the local gate.
            if (existing.lostReason() == null) {
                reportLost(existing, "its lease had already run out in Redis when its owner locked again");
            }
            existing.released = true;
            hold.ownsPermit = existing.ownsPermit;
            hold.gate = existing.gate;
            existing.gate = null;
            if (hold.gate != null && hold.ownsPermit) {
                hold.gate.holder = hold;
            }
        }
        holds.put(id, hold);
        fire(l -> l.onAcquire(info, AcquireOutcome.ACQUIRED, Duration.ofNanos(now - start)));
        return hold;
    }

    private Hold timedOut(LockInfo info, long start) {
        fire(l -> l.onAcquire(info, AcquireOutcome.TIMEOUT, Duration.ofNanos(System.nanoTime() - start)));
        return null;
    }

    /** The hold {@code owner} has on {@code keys} in this client, or {@code null}. */
    Hold hold(LockKind kind, LockKeys keys, String owner) {
        return holds.get(holdId(kind, keys, owner));
    }

    /**
     * Releases one hold count.
     *
     * @throws LockLeaseExpiredException when the hold was lost or its lease ran out
     */
    void release(Hold hold) {
        String lost = hold.lostReason();
        int left = hold.exit();
        if (left <= 0) {
            // Before the script runs: a renewal reply that finds the lock gone must not count as a loss.
            hold.released = true;
            holds.remove(holdId(hold), hold);
        }
        try {
            if (lost != null) {
                if (left <= 0) {
                    releaseQuietly(hold);
                }
                throw new LockLeaseExpiredException(hold.info.name(), lost);
            }
            long result;
            try {
                result = await(hold.kind.release(scripts, hold.keys, hold.owner, hub.message(hold.kind.wakesAllOnRelease())),
                        "releasing", hold.keys);
            } catch (LockException e) {
                hub.wakeLocal(hold.keys.channel(), hold.kind.wakesAllOnRelease()); // the release may have happened: let a waiter check
                throw e;
            }
            if (result == 1) {
                hold.released = true;
                holds.remove(holdId(hold), hold);
                left = 0;
                exitGate(hold);
                hub.wakeLocal(hold.keys.channel(), hold.kind.wakesAllOnRelease());
                Duration held = hold.heldFor(System.nanoTime());
                fire(l -> l.onRelease(hold.info, held));
            } else if (result < 0) {
                hold.released = true;
                holds.remove(holdId(hold), hold);
                left = 0;
                String reason = hold.watchdog()
                        ? "it was no longer in Redis when unlocking (expired or force-unlocked)"
                        : "its explicit lease of " + hold.explicitLeaseMs + " ms ran out before unlock";
                reportLost(hold, reason);
                throw new LockLeaseExpiredException(hold.info.name(), hold.lostReason());
            }
        } finally {
            if (left <= 0) {
                exitGate(hold);
            }
        }
    }

    /** After a hold's last release in Redis: the next local waiter may try. Runs once per hold. */
    private void exitGate(Hold hold) {
        LocalGates.Gate gate = hold.gate;
        if (gate != null) {
            hold.gate = null;
            if (hold.ownsPermit) {
                gate.exit();
            }
            gates.leave(gateId(hold.kind, hold.keys), gate);
        }
    }

    /**
     * Best-effort release of a lost hold. Waits for the reply: the owner id is the same as that of the
     * thread's next hold, and a release still in flight (re-sent with EVAL after NOSCRIPT) could reach
     * Redis after the next acquire and delete the new hold.
     */
    private void releaseQuietly(Hold hold) {
        try {
            await(hold.kind.release(scripts, hold.keys, hold.owner, hub.message(hold.kind.wakesAllOnRelease())), "releasing lost",
                    hold.keys);
        } catch (LockException e) {
            log.warn("Could not clean up lost lock '{}'; it expires with its lease: {}", hold.info.name(), e.toString());
        } finally {
            hub.wakeLocal(hold.keys.channel(), hold.kind.wakesAllOnRelease());
        }
    }

    boolean forceRelease(LockKeys keys, boolean wakeAll) {
        long result = await(scripts.integer(LockScript.FORCE_RELEASE, new String[] {keys.lock(), keys.channel()},
                hub.message(wakeAll)), "force-releasing", keys);
        hub.wakeLocal(keys.channel(), wakeAll);
        return result == 1;
    }

    boolean isLocked(LockKeys keys) {
        return await(redis.keys.exists(keys.lock()).toCompletableFuture(), "checking", keys) > 0;
    }

    Duration remainingLease(LockKeys keys) {
        long ttl = await(redis.keys.pttl(keys.lock()).toCompletableFuture(), "reading the lease of", keys);
        return ttl > 0 ? Duration.ofMillis(ttl) : Duration.ZERO;
    }

    // Single attempts for RedLockClient, which spans several engines and keeps its own holds: one
    // script run each, no waiting, no local hold, no events. Replies as documented on LockKind.

    CompletableFuture<List<Object>> acquireOnce(LockKeys keys, String owner, long leaseMs) {
        return ReentrantKind.INSTANCE.acquire(scripts, keys, owner, Long.toString(leaseMs), fenceTtlArg, 0);
    }

    CompletableFuture<Long> releaseOnce(LockKeys keys, String owner) {
        return ReentrantKind.INSTANCE.release(scripts, keys, owner, hub.message(false));
    }

    CompletableFuture<Long> renewOnce(LockKeys keys, String owner, long leaseMs) {
        return ReentrantKind.INSTANCE.renew(scripts, keys, owner, Long.toString(leaseMs));
    }

    /** Raises the fencing counter of {@code keys} to at least {@code token} while {@code owner} holds it: 1, else 0. */
    CompletableFuture<Long> raiseFenceOnce(LockKeys keys, String owner, long token) {
        return scripts.integer(LockScript.RAISE_FENCE, new String[] {keys.lock(), keys.fence()}, owner, Long.toString(token), fenceTtlArg);
    }

    CompletableFuture<Long> forceReleaseOnce(LockKeys keys) {
        return scripts.integer(LockScript.FORCE_RELEASE, new String[] {keys.lock(), keys.channel()}, hub.message(false));
    }

    /** PTTL of the lock key: -2 when absent. */
    CompletableFuture<Long> pttlOnce(LockKeys keys) {
        return redis.keys.pttl(keys.lock()).toCompletableFuture();
    }

    /** Holds of this client that are still valid. */
    int activeHolds() {
        long now = System.nanoTime();
        return (int) holds.values().stream().filter(h -> h.isLive(now)).count();
    }

    int subscribedChannels() {
        return hub.subscribedChannels();
    }

    /** Lock names with a local gate in use (for tests). */
    int localGates() {
        return gates.size();
    }

    /** Threads queued in front of Redis at a local gate (for tests). */
    int localWaiters() {
        return gates.waiting();
    }

    private List<LeaseWatchdog.Lease> leases() {
        return holds.values().stream().<LeaseWatchdog.Lease>map(WatchedHold::new).toList();
    }

    /** Adapts a hold to the watchdog: renews watchdog leases, reports explicit leases that ran out. */
    private final class WatchedHold implements LeaseWatchdog.Lease {
        private final Hold hold;

        WatchedHold(Hold hold) {
            this.hold = hold;
        }

        @Override
        public boolean dueForRenewal(long now) {
            if (hold.released || hold.lostReason() != null) {
                return false;
            }
            if (!hold.watchdog()) {
                if (now - hold.leaseEndNanos > 0) {
                    reportLost(hold, "its explicit lease of " + hold.explicitLeaseMs + " ms ran out while it was still held");
                }
                return false;
            }
            if (now - hold.leaseEndNanos > 0) {
                // No renewal confirmed for a whole lease: Redis may have let the key expire. Do not wait for
                // the client's command time-out to say so.
                reportLost(hold, "no renewal was confirmed within the " + watchdogLeaseMs + " ms lease (Redis unreachable or stalled)");
                return false;
            }
            return true;
        }

        @Override
        public void renew(long sentAt) {
            hold.kind.renew(scripts, hold.keys, hold.owner, watchdogLeaseArg)
                    .whenComplete((result, error) -> renewed(hold, sentAt, result, error));
        }
    }

    private void renewed(Hold hold, long sentAt, Long result, Throwable error) {
        if (hold.released) {
            return; // the reply raced with unlock: nothing was revived, nothing was lost
        }
        if (error != null) {
            fire(l -> l.onRenewal(hold.info, RenewalOutcome.ERROR));
            if (System.nanoTime() - hold.leaseEndNanos > 0) {
                reportLost(hold, "Redis stayed unreachable for longer than the lease (" + error.getMessage() + ")");
            } else {
                log.warn("Renewing lock '{}' failed, retrying while the lease lasts: {}", hold.info.name(), error.toString());
            }
        } else if (result == 1L) {
            hold.leaseEndNanos = sentAt + TimeUnit.MILLISECONDS.toNanos(watchdogLeaseMs);
            fire(l -> l.onRenewal(hold.info, RenewalOutcome.RENEWED));
        } else {
            fire(l -> l.onRenewal(hold.info, RenewalOutcome.LOST));
            reportLost(hold, "renewal found the lock gone or held by another owner");
        }
    }

    private void reportLost(Hold hold, String reason) {
        if (hold.markLost(reason)) {
            log.warn("Lock '{}' was lost while held (owner {}, fencing token {}): {}", hold.info.name(), hold.owner, hold.token, reason);
            fire(l -> l.onLeaseLost(hold.info, reason));
            if (options.interruptOnLeaseLost() && hold.thread != null && !hold.released) {
                hold.thread.interrupt(); // the holder asked to be stopped rather than run on unprotected
            }
        }
    }

    private void fire(Consumer<LockListener> event) {
        for (LockListener listener : options.listeners()) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                log.warn("Lock listener {} failed", listener, e);
            }
        }
    }

    private static String holdId(Hold hold) {
        return holdId(hold.kind, hold.keys, hold.owner);
    }

    /** The local queue of one kind of lock on one name, shared by all owners of this client. */
    private static String gateId(LockKind kind, LockKeys keys) {
        return keys.lock() + '\n' + kind.name;
    }

    /** One owner's hold of one kind on one lock (a write holder may also hold the read lock of the same name). */
    private static String holdId(LockKind kind, LockKeys keys, String owner) {
        return keys.lock() + '\n' + kind.name + '\n' + owner;
    }

    /** Waits for a Redis reply without being interruptible (a half-seen grant must not leak). */
    static <T> T await(CompletableFuture<T> future, String doing, LockKeys keys) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof LockUpgradeException refused) {
                        throw new LockUpgradeException(refused.getMessage(), refused); // a refusal, not a Redis failure
                    }
                    throw new LockException("Redis failed while " + doing + " lock " + keys.lock() + ": " + cause.getMessage(), cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        watchdog.close();
        redis.close();
    }

    private record Grant(boolean granted, long value, long count) {
        long token() {
            return value;
        }

        long ttlMs() {
            return value;
        }
    }
}
