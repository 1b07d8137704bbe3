package dev.distlock.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A local queue in front of Redis: per lock name, one permit in this JVM. Only the thread holding
 * the permit tries the lock in Redis; the others wait here, without a round trip each, until the
 * holder releases (in Redis first, then here) or gives up. A holder whose lease ran out or was
 * lost no longer counts: waiters then go to Redis directly, as other processes would, so an
 * abandoned hold cannot block this JVM longer than it blocks the rest.
 */
final class LocalGates {

    /** How a thread got past the gate. */
    enum Pass {
        /** It holds the permit until its hold ends. */
        PERMIT,
        /** The permit's holder lost its lease: go to Redis without the permit. */
        BYPASS,
        /** The wait time ran out here. */
        TIMEOUT
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
        gates.values().forEach(g -> g.permit.release(Math.max(1, g.permit.getQueueLength())));
    }

    /** Threads waiting at any gate (for tests and diagnostics). */
    int waiting() {
        return gates.values().stream().mapToInt(g -> g.permit.getQueueLength()).sum();
    }

    /** The permit of one lock name. */
    static final class Gate {
        /**
         * Not fair: a thread that just released may take the permit again before a parked waiter wakes,
         * which keeps a contended lock busy (each fair hand-off waits for a wake-up; measured: about a
         * fifth less throughput). Waiters park without polling, so none is starved for long.
         */
        private final Semaphore permit = new Semaphore(1);

        private final LocalGates owner;
        /** The hold that owns the permit, once granted in Redis. */
        volatile Hold holder;

        private int users; // guarded by the map's lock for this key

        Gate(LocalGates owner) {
            this.owner = owner;
        }

        /** Waits for the permit until {@code deadline} (System.nanoTime), or until its holder's lease is gone. */
        Pass enter(long deadline, boolean interruptible) throws InterruptedException {
            boolean interrupted = false;
            try {
                while (true) {
                    if (owner.closed) {
                        return Pass.BYPASS;
                    }
                    if (permit.tryAcquire()) {
                        return Pass.PERMIT;
                    }
                    long now = System.nanoTime();
                    Hold current = holder;
                    // A released holder is handing the permit on: wait for it. A lost or run-out one may never.
                    if (current != null && !current.released && !current.isLive(now)) {
                        return Pass.BYPASS;
                    }
                    long remaining = deadline - now;
                    if (remaining <= 0) {
                        return Pass.TIMEOUT;
                    }
                    // Sleep until the permit comes or the holder's lease ends (it may be lost): no polling, which
                    // with thousands of waiters (virtual threads) would cost more than the lock itself. Without a
                    // holder yet (the permit's thread is still waiting in Redis), look again now and then.
                    long slice = Math.min(
                            remaining,
                            current == null
                                    ? RECHECK_NANOS
                                    : Math.max(0, current.validUntilNanos - now) + TimeUnit.MILLISECONDS.toNanos(1));
                    try {
                        if (permit.tryAcquire(slice, TimeUnit.NANOSECONDS)) {
                            return Pass.PERMIT;
                        }
                    } catch (InterruptedException e) {
                        if (interruptible) {
                            throw e;
                        }
                        interrupted = true; // lock() is not interruptible: keep waiting, restore the flag after
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /** Hands the permit to the next local waiter. */
        void exit() {
            holder = null;
            permit.release();
        }
    }
}
