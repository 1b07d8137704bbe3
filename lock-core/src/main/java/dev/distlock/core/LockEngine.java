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
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
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
    private final ScheduledThreadPoolExecutor timers;
    private final RedisCalls calls;
    private final LeaseWatchdog watchdog;
    private static final Duration FOREVER = Duration.ofDays(365L * 100);

    private final ConcurrentHashMap<String, Hold> holds = new ConcurrentHashMap<>();
    private final LocalGates gates = new LocalGates();
    /** Numbers the requests of this client; with the owner id they name a grant in Redis. */
    private final AtomicLong requests = new AtomicLong();
    private final long watchdogLeaseMs;
    private final long fenceTtlMs;
    /** How long Redis remembers a last release, so that the same release sent again still answers "released". */
    private final long releaseNoteTtlMs;

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
        this.fenceTtlMs = options.fencingCounterTtl().toMillis();
        this.releaseNoteTtlMs = Math.max(1000, 2 * options.operationTimeout().toMillis());
        this.timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "distlock-timer-" + clientId.substring(0, 8));
            t.setDaemon(true);
            return t;
        });
        timers.setRemoveOnCancelPolicy(true);
        this.calls = new RedisCalls(options.operationTimeout().toNanos(), timers);
        this.watchdog = new LeaseWatchdog(timers, options.watchdogLease(), this::leases);
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
        try {
            if (calls.isClosed()) {
                throw calls.closedException();
            }
            kind.checkAcquire(this, info, keys, owner);
            // As java.util.concurrent.locks.Lock specifies: a pending interrupt fails even a free lock.
            if (interruptible && Thread.interrupted()) {
                throw new InterruptedException("Interrupted before acquiring lock '" + info.name() + "'");
            }
            String id = holdId(kind, keys, owner);
            Hold current = holds.get(id);
            if (!kind.localQueue() || (current != null && current.isLive(start))) {
                // Shared kinds never queue locally; re-entry already passed the local gate.
                return acquireInRedis(kind, info, keys, owner, deadline, leaseMs, lease == null, start, interruptible);
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
                hold = acquireInRedis(kind, info, keys, owner, deadline, leaseMs, lease == null, start, interruptible);
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
            AcquireOutcome outcome = e instanceof LockUnavailableException ? AcquireOutcome.UNAVAILABLE : AcquireOutcome.ERROR;
            fire(l -> l.onAcquire(info, outcome, Duration.ofNanos(System.nanoTime() - start)));
            throw e;
        }
    }

    /**
     * Tries in Redis, then waits for wake-ups (each sleep bounded by the holder's TTL) until {@code deadline}.
     * Every attempt of one call carries the same grant id, so any of them that Redis ran twice, or ran
     * although its reply never came, is one grant that the next attempt or the clean-up recognises.
     */
    private Hold acquireInRedis(LockKind kind, LockInfo info, LockKeys keys, String owner, long deadline, long leaseMs,
            boolean watchdog, long start, boolean interruptible) throws InterruptedException {
        Hold current = holds.get(holdId(kind, keys, owner));
        boolean reentry = current != null && current.isLive(start);
        ScriptArgs.Acquire args = new ScriptArgs.Acquire(owner, leaseMs, fenceTtlMs, reentry ? current.count() : 0,
                reentry ? current.grantId : Long.toString(requests.incrementAndGet()), 0);
        boolean acquired = false;
        WaitChannel channel = null;
        try {
            Grant grant = attempt(kind, keys, args, deadline);
            while (true) {
                if (grant.granted()) {
                    Hold hold = granted(kind, info, keys, args, grant, watchdog, start);
                    if (hold != null) {
                        acquired = true;
                        return hold;
                    }
                    grant = new Grant(false, 0, 0, args.grantId(), grant.sentNanos()); // arrived after its lease: look again at once
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return timedOut(info, start);
                }
                if (channel == null) {
                    channel = hub.join(kind.waitChannel(keys, owner));
                    awaitSubscription(channel, deadline, keys, interruptible);
                } else {
                    // The holder's TTL bounds the sleep: a lost wake-up or a crashed holder cannot stall us.
                    // PTTL 0 is the lease's last millisecond (expiry publishes nothing): look again right after it.
                    // Only a key without TTL (-1) falls back to a whole watchdog lease.
                    long ttlMs = grant.ttlMs() >= 0 ? Math.max(1, grant.ttlMs()) : watchdogLeaseMs;
                    channel.await(Math.min(TimeUnit.MILLISECONDS.toNanos(ttlMs), remaining), interruptible);
                }
                if (interruptible && Thread.interrupted()) {
                    throw new InterruptedException("Interrupted while waiting for lock '" + info.name() + "'");
                }
                grant = attempt(kind, keys, args, deadline);
            }
        } catch (LockUnavailableException e) {
            if (args.held() == 0) {
                // Redis may have granted the lock and the reply been lost: give that grant back, whenever Redis answers.
                releaseInBackground(kind, keys, owner, args.grantId(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMs));
            }
            throw e;
        } finally {
            if (channel != null) {
                hub.leave(channel);
            }
            if (!acquired) {
                gaveUp(kind, keys, owner);
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
        long until = Math.min(deadline - System.nanoTime(), calls.operationTimeoutNanos()) + System.nanoTime();
        try {
            while (true) {
                try {
                    channel.subscribed().get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
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

    /** One script run, bounded by the caller's deadline (at least {@link RedisCalls#MIN_STEP_NANOS}). */
    private Grant attempt(LockKind kind, LockKeys keys, ScriptArgs.Acquire args, long deadline) {
        long sentAt = System.nanoTime();
        ScriptArgs.Acquire call = args.withWaitMs(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - sentAt)));
        Grant grant = Grant.of(calls.call(() -> kind.acquire(scripts, keys, call), calls.stepDeadline(deadline), "acquiring", keys),
                args.grantId(), sentAt);
        if (grant.granted() && grant.count() == 1 && options.replicaAcks() > 0) {
            confirmReplicated(kind, keys, args, deadline);
        }
        return grant;
    }

    /** WAIT for the configured replicas after a new grant; give the grant back when too few acknowledge. */
    private void confirmReplicated(LockKind kind, LockKeys keys, ScriptArgs.Acquire args, long deadline) {
        long acked = calls.call(() -> redis.base.waitForReplication(options.replicaAcks(), options.replicaAckTimeout().toMillis())
                .toCompletableFuture(), calls.stepDeadline(deadline) + options.replicaAckTimeout().toNanos(), "waiting for replicas of", keys);
        if (acked < options.replicaAcks()) {
            calls.call(() -> kind.release(scripts, keys, releaseArgs(kind, args.owner(), args.grantId(), 1)), calls.operationDeadline(),
                    "giving back", keys);
            throw new LockException("Lock " + keys.lock() + " was granted but only " + acked + " of " + options.replicaAcks()
                    + " replica(s) acknowledged it within " + options.replicaAckTimeout().toMillis()
                    + " ms, so it was given back: check the replicas, or lower replicaAcks", null);
        }
    }

    /**
     * Records a grant. Returns {@code null} for a grant whose reply came after its lease had already run
     * out in Redis (counted from when the request was sent): it is given back, and the caller looks again.
     */
    private Hold granted(LockKind kind, LockInfo info, LockKeys keys, ScriptArgs.Acquire args, Grant grant, boolean watchdog,
            long start) {
        String owner = args.owner();
        long leaseMs = args.leaseMs();
        long now = System.nanoTime();
        String id = holdId(kind, keys, owner);
        Hold existing = holds.get(id);
        if (grant.count() > 1 && existing != null && existing.grantId.equals(grant.grantId()) && !existing.released
                && existing.lostReason() == null) {
            existing.reentered(leaseMs, grant.sentNanos());
            watchFixedLease(existing);
            return existing;
        }
        if (now - (grant.sentNanos() + TimeUnit.MILLISECONDS.toNanos(leaseMs)) >= 0) {
            releaseInBackground(kind, keys, owner, grant.grantId(), now + calls.operationTimeoutNanos());
            return null;
        }
        Hold hold = new Hold(kind, info, keys, owner, grant, leaseMs, watchdog, grant.sentNanos());
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
        watchFixedLease(hold);
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
     * Releases one hold count. The script is told how many holds the owner has, so running it twice
     * (a reply lost) releases once.
     *
     * @throws LockLeaseExpiredException when the hold was lost or its lease ran out
     * @throws LockUnavailableException when Redis did not confirm the release within the operation
     *         timeout; a last release is then retried in the background until the lease ends
     */
    void release(Hold hold) {
        String lost = hold.lostReason();
        int held = hold.count();
        int left = hold.exit();
        if (left <= 0) {
            // Before the script runs: a renewal reply that finds the lock gone must not count as a loss.
            hold.released = true;
            holds.remove(holdId(hold), hold);
            cancelLeaseTimer(hold);
        }
        try {
            if (lost != null) {
                if (left <= 0) {
                    // A stale release cannot hurt a later hold of the same owner: it names this grant only.
                    releaseInBackground(hold.kind, hold.keys, hold.owner, hold.grantId, hold.leaseEndNanos);
                }
                throw new LockLeaseExpiredException(hold.info.name(), lost);
            }
            if (calls.isClosed()) {
                throw calls.closedException();
            }
            long result;
            try {
                result = calls.call(() -> hold.kind.release(scripts, hold.keys, releaseArgs(hold.kind, hold.owner, hold.grantId, held)),
                        calls.operationDeadline(), "releasing", hold.keys);
            } catch (LockUnavailableException e) {
                hub.wakeLocal(hold.keys.channel(), hold.kind.wakesAllOnRelease()); // the release may have happened: let a waiter check
                if (left <= 0) {
                    releaseInBackground(hold.kind, hold.keys, hold.owner, hold.grantId, hold.leaseEndNanos);
                    throw new LockUnavailableException(e.getMessage() + "; the release is retried in the background until the"
                            + " lease ends, when the lock frees itself anyway", e.getCause());
                }
                throw e;
            } catch (LockException e) {
                hub.wakeLocal(hold.keys.channel(), hold.kind.wakesAllOnRelease());
                throw e;
            }
            if (result == 1) {
                hold.released = true;
                holds.remove(holdId(hold), hold);
                left = 0;
                exitGate(hold);
                hub.wakeLocal(hold.keys.channel(), hold.kind.wakesAllOnRelease());
                Duration heldFor = hold.heldFor(System.nanoTime());
                fire(l -> l.onRelease(hold.info, heldFor));
            } else if (result < 0) {
                hold.released = true;
                holds.remove(holdId(hold), hold);
                cancelLeaseTimer(hold);
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

    private ScriptArgs.Release releaseArgs(LockKind kind, String owner, String grantId, int held) {
        return new ScriptArgs.Release(owner, grantId, held, hub.message(kind.wakesAllOnRelease()), releaseNoteTtlMs);
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
     * Gives back grant {@code grantId} of {@code owner} whenever Redis answers, until {@code until}: for
     * a grant whose reply never came, or a release nobody waits for. It names the grant, so it can
     * never release a later hold of the same owner, and local waiters are woken when it lands.
     */
    private void releaseInBackground(LockKind kind, LockKeys keys, String owner, String grantId, long until) {
        calls.inBackground(() -> kind.release(scripts, keys, releaseArgs(kind, owner, grantId, 1))
                .whenComplete((result, error) -> hub.wakeLocal(keys.channel(), kind.wakesAllOnRelease())), until, "giving back", keys);
    }

    /** Leaves a fair queue (or whatever the kind does on giving up), waiting briefly: Redis may not answer. */
    private void gaveUp(LockKind kind, LockKeys keys, String owner) {
        CompletableFuture<?> leaving = kind.gaveUp(scripts, keys, owner);
        if (leaving == null) {
            return;
        }
        try {
            calls.call(() -> leaving, System.nanoTime() + RedisCalls.MIN_STEP_NANOS, "leaving the queue of", keys);
        } catch (LockException e) {
            // The acquire ends anyway and its own outcome matters more; the queue place expires with its deadline.
            log.warn("Could not leave the queue of lock {}; the place expires by itself within seconds: {}", keys.lock(), e.toString());
        }
    }

    /** Reports an explicit lease that runs out while still held at the moment it runs out, not at the next watchdog tick. */
    private void watchFixedLease(Hold hold) {
        if (hold.watchdog() || hold.released || hold.lostReason() != null || calls.isClosed()) {
            return;
        }
        cancelLeaseTimer(hold);
        try {
            hold.leaseTimer = timers.schedule(() -> {
                if (!hold.released && hold.lostReason() == null) {
                    if (System.nanoTime() - hold.leaseEndNanos < 0) {
                        watchFixedLease(hold); // re-entered with a later lease meanwhile
                    } else {
                        reportLost(hold, "its explicit lease of " + hold.explicitLeaseMs + " ms ran out while it was still held");
                    }
                }
            }, Math.max(0, hold.leaseEndNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("Client closing: lease of '{}' not watched", hold.info.name());
        }
    }

    private static void cancelLeaseTimer(Hold hold) {
        Future<?> timer = hold.leaseTimer;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    boolean forceRelease(LockKeys keys, boolean wakeAll) {
        long result = calls.call(() -> scripts.integer(LockScript.FORCE_RELEASE, new String[] {keys.lock()}, keys.channel(),
                hub.message(wakeAll)), calls.operationDeadline(), "force-releasing", keys);
        hub.wakeLocal(keys.channel(), wakeAll);
        return result == 1;
    }

    boolean isLocked(LockKeys keys) {
        return calls.call(() -> redis.keys.exists(keys.lock()).toCompletableFuture(), calls.operationDeadline(), "checking", keys) > 0;
    }

    Duration remainingLease(LockKeys keys) {
        long ttl = calls.call(() -> redis.keys.pttl(keys.lock()).toCompletableFuture(), calls.operationDeadline(), "reading the lease of",
                keys);
        return ttl > 0 ? Duration.ofMillis(ttl) : Duration.ZERO;
    }

    // Single attempts for RedLockClient, which spans several engines and keeps its own holds: one
    // script run each, no waiting, no local hold, no events. Replies as documented on LockKind.

    CompletableFuture<List<Object>> acquireOnce(LockKeys keys, String owner, String grantId, long leaseMs) {
        return ReentrantKind.INSTANCE.acquire(scripts, keys, new ScriptArgs.Acquire(owner, leaseMs, fenceTtlMs, 0, grantId, 0));
    }

    CompletableFuture<Long> releaseOnce(LockKeys keys, String owner, String grantId) {
        return ReentrantKind.INSTANCE.release(scripts, keys, releaseArgs(ReentrantKind.INSTANCE, owner, grantId, 1));
    }

    CompletableFuture<Long> renewOnce(LockKeys keys, String owner, String grantId, long leaseMs) {
        return ReentrantKind.INSTANCE.renew(scripts, keys, owner, grantId, leaseMs);
    }

    /** Raises the fencing counter of {@code keys} to at least {@code token} while {@code owner} holds it: 1, else 0. */
    CompletableFuture<Long> raiseFenceOnce(LockKeys keys, String owner, long token) {
        return scripts.integer(LockScript.RAISE_FENCE, new String[] {keys.lock()}, owner, Long.toString(token), Long.toString(fenceTtlMs));
    }

    CompletableFuture<Long> forceReleaseOnce(LockKeys keys) {
        return scripts.integer(LockScript.FORCE_RELEASE, new String[] {keys.lock()}, keys.channel(), hub.message(false));
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
                return false; // its own timer reports it when it runs out (watchFixedLease)
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
            // Bounded by one watchdog period: a renewal still unanswered then is cancelled, and the next round sends another.
            CompletableFuture<Long> renewal = hold.kind.renew(scripts, hold.keys, hold.owner, hold.grantId, watchdogLeaseMs);
            renewal.orTimeout(Math.min(calls.operationTimeoutNanos(), TimeUnit.MILLISECONDS.toNanos(Math.max(1, watchdogLeaseMs / 3))),
                    TimeUnit.NANOSECONDS).whenComplete((result, error) -> {
                        if (error != null) {
                            renewal.cancel(true);
                        }
                        renewed(hold, sentAt, result, error == null ? null : RedisCalls.unwrap(error));
                    });
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
            reportLost(hold, "renewal found the lock gone, or held by another owner or another grant");
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

    /**
     * Stops the watchdog and closes the connections. Threads still waiting for a lock of this client
     * wake at once with a {@link LockException}, and every later call says the client is closed.
     */
    @Override
    public void close() {
        calls.close();
        gates.close();
        hub.wakeAll();
        watchdog.close();
        timers.shutdownNow();
        redis.close();
    }
}
