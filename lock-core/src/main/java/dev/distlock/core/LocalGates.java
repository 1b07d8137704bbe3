package dev.distlock.core;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A local queue in front of Redis: per lock name, one permit in this JVM. Only the thread holding
 * the permit tries the lock in Redis; the others wait here, in arrival order and without a round trip
 * each, until the holder releases or gives up. A holder releasing while others wait may hand its
 * grant in Redis to the first of them ({@link Baton}: lock cohorting) instead of releasing it in
 * Redis. A holder whose lease ran out or was lost no longer counts: waiters then go to Redis
 * directly, as other processes would, so an abandoned hold cannot block this JVM longer than it
 * blocks the rest.
 */
final class LocalGates {

    /** How a thread got past the gate. */
    enum Pass {
        /** It holds the permit until its hold ends: acquire in Redis. */
        PERMIT,
        /** It holds the permit and a grant handed on by the last holder: no round trip needed. */
        HANDED_ON,
        /** The permit's holder lost its lease: go to Redis without the permit. */
        BYPASS,
        /** The wait time ran out here. */
        TIMEOUT
    }

    /**
     * A grant in Redis passed from a releasing local holder to the next local waiter: the same grant
     * (owner id and grant id in Redis), the next of its reserved fencing tokens.
     *
     * @param kind the kind of lock
     * @param keys its keys
     * @param redisOwner the owner id of the grant in Redis
     * @param grantId the grant id in Redis
     * @param token the fencing token of the new hold
     * @param tokenLimit the last token the grant reserved
     * @param lease the lease (a watchdog lease: the next holder's watchdog renews it)
     * @param validUntilNanos until when the grant is valid as far as this client knows
     * @param redisGrantNanos when the grant in Redis was asked for
     */
    record Baton(
            LockKind kind,
            LockKeys keys,
            String redisOwner,
            String grantId,
            long token,
            long tokenLimit,
            Lease lease,
            long validUntilNanos,
            long redisGrantNanos) {}

    /** What {@link Gate#enter} gave: how it passed, and the handed-on grant for {@link Pass#HANDED_ON}. */
    record Entry(Pass pass, @Nullable Baton baton) {
        static final Entry PERMIT = new Entry(Pass.PERMIT, null);
        static final Entry BYPASS = new Entry(Pass.BYPASS, null);
        static final Entry TIMEOUT = new Entry(Pass.TIMEOUT, null);
    }

    /** How often a waiter looks again while the permit's thread has no hold yet (it is still waiting in Redis). */
    private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();
    /** Set when the client closes: waiters leave the gate and find the client closed. */
    private volatile boolean closed;

    /** The gate of {@code lockKey}, counted as used until {@link #leave}. */
    Gate join(String lockKey) {
        return gates.compute(lockKey, (key, existing) -> {
            Gate gate = existing != null ? existing : new Gate(this);
            gate.users++;
            return gate;
        });
    }

    /** Stops using {@code gate}; the last user removes it. */
    void leave(String lockKey, Gate gate) {
        gates.computeIfPresent(lockKey, (key, existing) -> existing == gate && --gate.users == 0 ? null : existing);
    }

    int size() {
        return gates.size();
    }

    /** Lets every waiter out (each sees the client closed next); later waiters do not wait. */
    void close() {
        closed = true;
        gates.values().forEach(Gate::releaseAll);
    }

    /** Threads waiting at any gate (for tests and diagnostics). */
    int waiting() {
        return gates.values().stream().mapToInt(Gate::queued).sum();
    }

    /** One waiting thread; {@code outcome} is set (under the gate's lock) when the permit is handed to it. */
    private static final class Waiter {
        final Thread thread = Thread.currentThread();
        final Lease lease;
        volatile @Nullable Entry outcome;

        Waiter(Lease lease) {
            this.lease = lease;
        }
    }

    /** The permit of one lock name, handed on in arrival order. */
    static final class Gate {
        private final ReentrantLock lock = new ReentrantLock();
        private final ArrayDeque<Waiter> queue = new ArrayDeque<>(); // guarded by lock
        private boolean taken; // guarded by lock

        private final LocalGates owner;
        /** The hold that owns the permit, once granted in Redis. */
        volatile Hold holder;

        private int users; // guarded by the map's lock for this key

        Gate(LocalGates owner) {
            this.owner = owner;
        }

        /**
         * Waits for the permit until {@code deadline} (System.nanoTime), or until its holder's lease is
         * gone. A waiter asking for {@code lease} may be handed a grant with that lease.
         */
        Entry enter(long deadline, boolean interruptible, Lease lease) throws InterruptedException {
            Waiter me;
            lock.lock();
            try {
                if (owner.closed) {
                    return Entry.BYPASS;
                }
                if (!taken) {
                    taken = true;
                    return Entry.PERMIT;
                }
                me = new Waiter(lease);
                queue.addLast(me);
            } finally {
                lock.unlock();
            }
            boolean interrupted = false;
            try {
                while (true) {
                    Entry outcome = me.outcome;
                    if (outcome != null) {
                        return outcome;
                    }
                    long now = System.nanoTime();
                    Hold current = holder;
                    // A released holder is handing the permit on: wait for it. A lost or run-out one may never.
                    boolean abandoned = current != null && !current.released && current.runOut(now);
                    long remaining = deadline - now;
                    if (abandoned || remaining <= 0 || (interrupted && interruptible)) {
                        Entry left = leave(me, abandoned ? Entry.BYPASS : Entry.TIMEOUT);
                        if (left.pass() == Pass.TIMEOUT && interrupted && interruptible) {
                            throw new InterruptedException("Interrupted while waiting for a lock");
                        }
                        return left;
                    }
                    // Sleep until the permit comes or the holder's lease ends (it may be lost): no polling, which
                    // with thousands of waiters (virtual threads) would cost more than the lock itself. Without a
                    // holder yet (the permit's thread is still waiting in Redis), look again now and then.
                    long slice = Math.min(
                            remaining,
                            current == null
                                    ? RECHECK_NANOS
                                    : Math.max(0, current.validUntilNanos - now) + TimeUnit.MILLISECONDS.toNanos(1));
                    LockSupport.parkNanos(this, slice);
                    if (Thread.interrupted()) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt(); // restored; an interruptible caller sees it next
                }
            }
        }

        /** Leaves the queue with {@code why}, unless the permit was handed over meanwhile: then that. */
        private Entry leave(Waiter me, Entry why) {
            lock.lock();
            try {
                Entry outcome = me.outcome;
                if (outcome != null) {
                    return outcome;
                }
                queue.remove(me);
                return why;
            } finally {
                lock.unlock();
            }
        }

        /** Hands the permit to the next local waiter (it acquires in Redis), or frees it. */
        void exit() {
            holder = null;
            Waiter next;
            lock.lock();
            try {
                next = queue.pollFirst();
                if (next == null) {
                    taken = false;
                    return;
                }
                next.outcome = Entry.PERMIT;
            } finally {
                lock.unlock();
            }
            LockSupport.unpark(next.thread);
        }

        /**
         * Hands the permit and {@code baton} to the next local waiter when there is one and it asked for
         * the baton's lease; returns whether it did (otherwise nothing changed).
         */
        boolean handOn(Baton baton) {
            Waiter next;
            lock.lock();
            try {
                next = queue.peekFirst();
                if (next == null || owner.closed || !next.lease.equals(baton.lease())) {
                    return false;
                }
                queue.pollFirst();
                holder = null;
                next.outcome = new Entry(Pass.HANDED_ON, baton);
            } finally {
                lock.unlock();
            }
            LockSupport.unpark(next.thread);
            return true;
        }

        private void releaseAll() {
            lock.lock();
            try {
                for (Waiter w : queue) {
                    w.outcome = Entry.BYPASS;
                    LockSupport.unpark(w.thread);
                }
                queue.clear();
            } finally {
                lock.unlock();
            }
        }

        private int queued() {
            lock.lock();
            try {
                return queue.size();
            } finally {
                lock.unlock();
            }
        }
    }
}
