package dev.distlock.core;

import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.NodeCalls.Reply;
import dev.distlock.core.watchdog.LeaseWatchdog;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RedLock client side over N independent masters: holds, retries with back-off, renewal and
 * events, with the majority rule in {@link RedLockQuorum}. Renewals of all holds run from one watchdog
 * thread; the node engines only run single script attempts.
 */
final class RedLockEngine implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedLockEngine.class);
    private static final Duration FOREVER = Duration.ofDays(365L * 100);

    final String clientId = UUID.randomUUID().toString();
    private final RedLockQuorum nodes;
    final int quorum;
    private final LockClientOptions options;
    private final long watchdogLeaseMs;
    private final ScheduledThreadPoolExecutor timers;
    private volatile boolean closed;
    private final LeaseWatchdog watchdog;
    /** Numbers the acquisitions of this client; with the owner id they name a grant on every node. */
    private final AtomicLong requests = new AtomicLong();
    private final ConcurrentHashMap<String, RedLockHold> holds = new ConcurrentHashMap<>();
    /** Signalled on every release by this client, so local waiters retry at once instead of after their back-off. */
    private final ReentrantLock wakeLock = new ReentrantLock();
    private final Condition released = wakeLock.newCondition();

    RedLockEngine(List<LockEngine> nodes, LockClientOptions options) {
        this.nodes = new RedLockQuorum(nodes);
        this.quorum = this.nodes.majority;
        this.options = options;
        this.watchdogLeaseMs = options.watchdogLease().toMillis();
        this.timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "distlock-redlock-watchdog-" + clientId.substring(0, 8));
            t.setDaemon(true);
            return t;
        });
        timers.setRemoveOnCancelPolicy(true);
        this.watchdog = new LeaseWatchdog(timers, options.watchdogLease(), this::leases);
    }

    int size() {
        return nodes.size();
    }

    List<LockKeys> keys(String name) {
        return nodes.keys(name);
    }

    RedLockHold hold(String name, String owner) {
        return holds.get(holdId(name, owner));
    }

    /**
     * Acquires the lock for {@code owner}, retrying with a short random back-off until {@code wait}
     * is spent ({@code null}: for ever).
     *
     * @return the hold, or {@code null} when the wait ran out
     * @throws LockException when fewer than a majority of nodes answered
     */
    RedLockHold acquire(LockInfo info, List<LockKeys> keys, String owner, Duration wait, Duration lease, boolean interruptible)
            throws InterruptedException {
        long start = System.nanoTime();
        long deadline = wait == null || wait.compareTo(FOREVER) >= 0 ? start + Long.MAX_VALUE / 2 : start + wait.toNanos();
        long leaseMs = lease == null ? watchdogLeaseMs : lease.toMillis();
        boolean interrupted = false;
        try {
            if (closed) {
                throw new LockException("The RedLockClient is closed: create a new one to take locks", null);
            }
            if (interruptible && Thread.interrupted()) {
                throw new InterruptedException("Interrupted before acquiring lock '" + info.name() + "'");
            }
            RedLockHold current = holds.get(holdId(info.name(), owner));
            if (current != null) {
                if (current.isLive(start)) {
                    current.reentered(); // re-entry keeps the lease and token of the first hold
                    return current;
                }
                supersede(current);
            }
            String grantId = Long.toString(requests.incrementAndGet());
            while (true) {
                RedLockQuorum.Attempt attempt = nodes.acquire(keys, owner, grantId, leaseMs);
                if (attempt.granted()) {
                    RedLockHold hold = new RedLockHold(info, keys, owner, grantId, attempt.token(), lease == null ? 0 : leaseMs, start,
                            attempt.validUntilNanos());
                    holds.put(holdId(info.name(), owner), hold);
                    watchFixedLease(hold);
                    fire(l -> l.onAcquire(info, AcquireOutcome.ACQUIRED, Duration.ofNanos(System.nanoTime() - start)));
                    return hold;
                }
                if (attempt.answered() < quorum) {
                    throw new LockUnavailableException("RedLock '" + info.name() + "': only " + attempt.answered() + " of " + nodes.size()
                            + " Redis nodes answered, a majority of " + quorum + " is needed; check that the nodes are up"
                            + " and reachable", attempt.error());
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    fire(l -> l.onAcquire(info, AcquireOutcome.TIMEOUT, Duration.ofNanos(System.nanoTime() - start)));
                    return null;
                }
                long backOff = TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextLong(5, 40));
                interrupted |= backOff(Math.min(remaining, backOff), interruptible);
                if (closed) {
                    throw new LockException("The RedLockClient was closed while waiting for lock '" + info.name() + "'", null);
                }
            }
        } catch (InterruptedException | RuntimeException e) {
            AcquireOutcome outcome = e instanceof LockUnavailableException ? AcquireOutcome.UNAVAILABLE : AcquireOutcome.ERROR;
            fire(l -> l.onAcquire(info, outcome, Duration.ofNanos(System.nanoTime() - start)));
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
        reportLost(stale, "its lease had already run out when its owner locked again");
        stale.released = true;
        holds.remove(holdId(stale.info.name(), stale.owner), stale);
        nodes.release(stale.keys, stale.owner, stale.grantId, leaseMs(stale));
    }

    /**
     * Releases one hold count; the last releases the lock on every node.
     *
     * @throws LockLeaseExpiredException when the hold was lost or its lease ran out before this call
     * @throws LockException when fewer than a majority of nodes answered (the lock expires with its lease)
     */
    void release(RedLockHold hold) {
        long now = System.nanoTime();
        String lost = hold.lostReason();
        if (lost == null && !hold.released && !hold.isLive(now)) {
            reportLost(hold, "its explicit lease of " + hold.explicitLeaseMs + " ms ran out before unlock");
            lost = hold.lostReason();
        }
        int left = hold.exit();
        if (left > 0) {
            if (lost != null) {
                throw new LockLeaseExpiredException(hold.info.name(), lost);
            }
            return;
        }
        // Before the scripts run: a renewal reply that finds the lock gone must not count as a loss.
        hold.released = true;
        holds.remove(holdId(hold.info.name(), hold.owner), hold);
        try {
            List<Reply<Long>> replies = nodes.release(hold.keys, hold.owner, hold.grantId, leaseMs(hold));
            if (lost != null) {
                throw new LockLeaseExpiredException(hold.info.name(), lost);
            }
            int notHeld = NodeCalls.count(replies, -1L);
            if (nodes.size() - notHeld < quorum) {
                reportLost(hold, "only " + (nodes.size() - notHeld) + " of " + nodes.size() + " nodes still had it at unlock");
                throw new LockLeaseExpiredException(hold.info.name(), hold.lostReason());
            }
            int answered = NodeCalls.answered(replies);
            if (answered < quorum) {
                throw new LockUnavailableException("RedLock '" + hold.info.name() + "': unlock reached only " + answered + " of "
                        + nodes.size() + " Redis nodes; the others let the lock expire with its lease", NodeCalls.firstError(replies));
            }
            fire(l -> l.onRelease(hold.info, Duration.ofNanos(System.nanoTime() - hold.acquiredNanos)));
        } finally {
            wakeLocalWaiters();
        }
    }

    private void wakeLocalWaiters() {
        wakeLock.lock();
        try {
            released.signalAll();
        } finally {
            wakeLock.unlock();
        }
    }

    boolean forceRelease(List<LockKeys> keys) {
        boolean deleted = nodes.forceRelease(keys, watchdogLeaseMs);
        wakeLocalWaiters();
        return deleted;
    }

    /** The PTTL (ms) that a majority of nodes still exceed, or -1 when fewer than a majority hold the key. */
    long majorityTtl(List<LockKeys> keys) {
        return nodes.majorityTtl(keys, watchdogLeaseMs);
    }

    int activeHolds() {
        long now = System.nanoTime();
        return (int) holds.values().stream().filter(h -> h.isLive(now)).count();
    }

    private List<LeaseWatchdog.Lease> leases() {
        return holds.values().stream().<LeaseWatchdog.Lease>map(WatchedHold::new).toList();
    }

    /** Renews a watchdog hold on every node; reports explicit leases that ran out while held. */
    private final class WatchedHold implements LeaseWatchdog.Lease {
        private final RedLockHold hold;

        WatchedHold(RedLockHold hold) {
            this.hold = hold;
        }

        @Override
        public boolean dueForRenewal(long now) {
            if (hold.released || hold.lostReason() != null) {
                return false;
            }
            return hold.watchdog(); // a fixed lease is reported by its own timer when it runs out (watchFixedLease)
        }

        @Override
        public void renew(long sentAt) {
            nodes.renew(hold.keys, hold.owner, hold.grantId, watchdogLeaseMs).thenAccept(replies -> renewed(hold, sentAt, replies));
        }
    }

    private void renewed(RedLockHold hold, long sentAt, List<Reply<Long>> replies) {
        if (hold.released) {
            return; // raced with unlock: the renew script never revives a released lock
        }
        int renewed = NodeCalls.count(replies, 1L);
        int gone = NodeCalls.count(replies, 0L);
        if (renewed >= quorum) {
            hold.validUntilNanos = sentAt + TimeUnit.MILLISECONDS.toNanos(watchdogLeaseMs) - RedLockQuorum.driftNanos(watchdogLeaseMs);
            fire(l -> l.onRenewal(hold.info, RenewalOutcome.RENEWED));
        } else if (nodes.size() - gone < quorum) {
            fire(l -> l.onRenewal(hold.info, RenewalOutcome.LOST));
            reportLost(hold, "renewal found it on only " + renewed + " of " + nodes.size() + " nodes, fewer than a majority of "
                    + quorum);
        } else {
            fire(l -> l.onRenewal(hold.info, RenewalOutcome.ERROR));
            if (System.nanoTime() - hold.validUntilNanos > 0) {
                reportLost(hold, "only " + renewed + " of " + nodes.size() + " nodes renewed it before the lease ran out ("
                        + NodeCalls.firstError(replies) + ")");
            } else {
                log.warn("Renewing RedLock '{}' reached only {} of {} nodes, retrying while the lease lasts: {}", hold.info.name(),
                        renewed, nodes.size(), String.valueOf(NodeCalls.firstError(replies)));
            }
        }
    }

    /** Reports a fixed lease that runs out while still held when it runs out, not at the next watchdog round. */
    private void watchFixedLease(RedLockHold hold) {
        if (hold.watchdog()) {
            return;
        }
        try {
            timers.schedule(() -> {
                if (!hold.released) {
                    reportLost(hold, "its explicit lease of " + hold.explicitLeaseMs + " ms ran out while it was still held");
                }
            }, Math.max(0, hold.validUntilNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("Client closing: lease of RedLock '{}' not watched", hold.info.name());
        }
    }

    private void reportLost(RedLockHold hold, String reason) {
        if (hold.markLost(reason)) {
            log.warn("RedLock '{}' was lost while held (owner {}, fencing token {}): {}", hold.info.name(), hold.owner, hold.token,
                    reason);
            fire(l -> l.onLeaseLost(hold.info, reason));
            if (options.interruptOnLeaseLost() && !hold.released) {
                hold.thread.interrupt(); // as LockEngine does: stop the holder rather than let it run on unprotected
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

    private long leaseMs(RedLockHold hold) {
        return hold.watchdog() ? watchdogLeaseMs : hold.explicitLeaseMs;
    }

    private static String holdId(String name, String owner) {
        return name + '\n' + owner;
    }

    @Override
    public void close() {
        closed = true;
        watchdog.close();
        timers.shutdownNow();
        wakeLocalWaiters();
    }
}
