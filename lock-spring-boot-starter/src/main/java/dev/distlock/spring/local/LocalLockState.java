package dev.distlock.spring.local;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockLeaseExpiredException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The in-JVM state of one lock name: the exclusive holder (reentrant, fair or write), the read
 * holders, the fair queue and the fencing counter. Every method runs under its lock ({@code guard});
 * waiting threads wait on its condition, and handles' acquisitions ({@link Waiter}) wait in a queue
 * without a thread, granted whenever the state changes and completed outside the lock. Mirrors the Redis kinds'
 * rules: reentrant per thread, a writer may also read, a reader may not upgrade, a waiting writer holds
 * new readers back, fair grants in arrival order (threads and handles alike), a fixed lease ends the
 * hold, handles do not re-enter.
 */
final class LocalLockState {

    /**
     * One owner's hold: a thread's, or a handle's (owned by its {@link Waiter}); {@code leaseEndNanos == 0}
     * for the watchdog lease (never ends while the JVM runs).
     */
    static final class Hold {
        final Object owner;
        final LockInfo info;
        final long token;
        final long acquiredNanos = System.nanoTime();
        /** Completes with the reason when the hold is lost while held: a handle's leaseLost(). */
        final CompletableFuture<String> lost = new CompletableFuture<>();

        int count = 1;
        /** Released with hold-at-least: the lock stays taken by nobody until its timer ends it. */
        boolean kept;

        long leaseEndNanos;
        ScheduledFuture<?> leaseTimer;
        /** How it was lost, once it is: decides the advice of the exception its unlock throws. */
        LockLeaseExpiredException.Loss loss = LockLeaseExpiredException.Loss.UNKNOWN;

        String lossReason = "it was no longer held when unlocking";

        Hold(Object owner, LockInfo info, long token) {
            this.owner = owner;
            this.info = info;
            this.token = token;
        }
    }

    /** A handle's acquisition; it owns the hold it is granted. {@code granted} completes with null when the wait ran out. */
    static final class Waiter {
        final LockInfo info;
        final boolean read;
        final boolean fair;
        final long leaseMs;
        final CompletableFuture<Hold> granted = new CompletableFuture<>();
        ScheduledFuture<?> timeout;

        Waiter(LockInfo info, boolean read, boolean fair, long leaseMs) {
            this.info = info;
            this.read = read;
            this.fair = fair;
            this.leaseMs = leaseMs;
        }
    }

    final String name;
    private final LocalLocks locks;
    /**
     * Guards the state; threads wait on {@link #changed}. Not a monitor: a virtual thread waiting on a
     * monitor pins its carrier thread on JDK 21-23, and a few such waiters would stall every virtual thread.
     */
    private final ReentrantLock guard = new ReentrantLock();

    private final Condition changed = guard.newCondition();
    private Hold exclusive;
    private final Map<Object, Hold> readers = new HashMap<>();
    /** Owners waiting for the write lock (threads and handles' waiters): new read holds wait for them. */
    private final Set<Object> writersWaiting = new HashSet<>();
    /** Owners waiting for a fair lock, oldest first: threads and handles' waiters. */
    private final ArrayDeque<Object> fairQueue = new ArrayDeque<>();
    /** Handles' acquisitions waiting, oldest first. */
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    /** Holds lost while held (lease ran out, force-unlocked), until their owner's unlock reports it. */
    private final Map<Object, List<Hold>> lost = new HashMap<>();
    /** Calls using this state now; changed only inside {@link LocalLocks}' map operations. */
    int users;

    LocalLockState(String name, LocalLocks locks) {
        this.name = name;
        this.locks = locks;
    }

    /** Waits up to {@code waitNanos} (negative: for ever); returns the hold, or null when the wait ran out. */
    Hold acquire(LockInfo info, boolean read, boolean fair, long leaseMs, long waitNanos, boolean interruptible)
            throws InterruptedException {
        guard.lock();
        try {
            Thread me = Thread.currentThread();
            Hold mine = held(read);
            if (mine != null) {
                mine.count++;
                startLease(mine, leaseMs);
                return mine;
            }
            if (!read && readers.containsKey(me)) {
                throw new IllegalStateException(
                        "Lock '" + name
                                + "': the current owner holds the read lock and cannot upgrade to the write"
                                + " lock (it would wait for itself); release every read hold first, or take the write lock first and downgrade");
            }
            if (fair) {
                fairQueue.addLast(me);
            }
            long deadline = System.nanoTime() + waitNanos;
            boolean interrupted = false;
            try {
                while (true) {
                    if (free(me, read, fair)) {
                        return grant(me, info, read, leaseMs);
                    }
                    if (!read) {
                        writersWaiting.add(me);
                    }
                    long left = waitNanos < 0 ? Long.MAX_VALUE : deadline - System.nanoTime();
                    if (left <= 0) {
                        return null;
                    }
                    try {
                        if (waitNanos < 0) {
                            changed.await();
                        } else {
                            changed.awaitNanos(left);
                        }
                    } catch (InterruptedException e) {
                        if (interruptible) {
                            throw e;
                        }
                        // lock() is not interruptible: wait on, and give the flag back once done (setting it
                        // now would make every further wait throw at once, a busy loop)
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    me.interrupt();
                }
                boolean wasWaitingWriter = !read && writersWaiting.remove(me);
                if ((fair && fairQueue.remove(me)) || wasWaitingWriter) {
                    signal(); // the next in line, or the readers this writer held back, may go now
                }
            }
        } finally {
            guard.unlock();
        }
    }

    /** Whether {@code owner} may take the lock now. */
    private boolean free(Object owner, boolean read, boolean fair) {
        if (read) {
            // a new read hold (re-entry never gets here): the write holder may read, others wait for writers
            return exclusive == null ? writersWaiting.isEmpty() : exclusive.owner == owner;
        }
        return exclusive == null && readers.isEmpty() && (!fair || fairQueue.peekFirst() == owner);
    }

    private Hold grant(Object owner, LockInfo info, boolean read, long leaseMs) {
        Hold hold = new Hold(owner, info, locks.nextToken());
        if (read) {
            readers.put(owner, hold);
        } else {
            exclusive = hold;
        }
        startLease(hold, leaseMs);
        return hold;
    }

    /**
     * A handle's acquisition: granted at once when the lock is free, else queued without a thread for up
     * to {@code waitNanos} (negative: for ever). Returns {@code waiter.granted}; cancelling it does not
     * dequeue the waiter, {@link #giveUp} does.
     */
    CompletableFuture<Hold> acquireAsync(Waiter waiter, long waitNanos) {
        guard.lock();
        try {
            if (waiter.fair) {
                fairQueue.addLast(waiter);
            }
            if (free(waiter, waiter.read, waiter.fair)) {
                fairQueue.remove(waiter);
                waiter.granted.complete(grant(waiter, waiter.info, waiter.read, waiter.leaseMs));
            } else if (waitNanos == 0) {
                if (fairQueue.remove(waiter)) {
                    signal();
                }
                waiter.granted.complete(null);
            } else {
                waiters.addLast(waiter);
                if (!waiter.read) {
                    writersWaiting.add(waiter);
                }
                if (waitNanos > 0) {
                    waiter.timeout = locks.schedule(
                            () -> locks.with(name, state -> state.giveUp(waiter)),
                            Math.max(1, (waitNanos + 999_999) / 1_000_000));
                }
            }
            return waiter.granted;
        } finally {
            guard.unlock();
        }
    }

    /** A waiting handle's wait ran out or was cancelled: it leaves the queues; its stage completes empty unless cancelled. */
    Void giveUp(Waiter waiter) {
        guard.lock();
        try {
            if (waiters.remove(waiter)) {
                if (waiter.timeout != null) {
                    waiter.timeout.cancel(false);
                }
                boolean wasWaitingWriter = writersWaiting.remove(waiter);
                if (fairQueue.remove(waiter) || wasWaitingWriter) {
                    signal();
                }
                locks.deliver(() -> waiter.granted.complete(null));
            }
            return null;
        } finally {
            guard.unlock();
        }
    }

    /** The locks are closing: every waiting handle leaves the queues; the caller fails them. */
    List<Waiter> drainWaiters() {
        guard.lock();
        try {
            List<Waiter> drained = new ArrayList<>(waiters);
            waiters.clear();
            for (Waiter waiter : drained) {
                fairQueue.remove(waiter);
                writersWaiting.remove(waiter);
                if (waiter.timeout != null) {
                    waiter.timeout.cancel(false);
                }
            }
            return drained;
        } finally {
            guard.unlock();
        }
    }

    /** The state changed: waiting threads look again, and waiting handles that may go now are granted. */
    private void signal() {
        changed.signalAll();
        // The cancelled ones first (their giveUp may come later, and then finds them gone): a cancelled writer
        // queued behind a reader must not hold that reader back.
        for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
            Waiter waiter = it.next();
            if (waiter.granted.isDone()) {
                it.remove();
                fairQueue.remove(waiter);
                writersWaiting.remove(waiter);
            }
        }
        for (Iterator<Waiter> it = waiters.iterator(); it.hasNext(); ) {
            Waiter waiter = it.next();
            if (free(waiter, waiter.read, waiter.fair)) {
                it.remove();
                fairQueue.remove(waiter);
                writersWaiting.remove(waiter);
                if (waiter.timeout != null) {
                    waiter.timeout.cancel(false);
                }
                Hold hold = grant(waiter, waiter.info, waiter.read, waiter.leaseMs);
                locks.deliver(() -> {
                    if (!waiter.granted.complete(hold)) { // cancelled as it was granted: nobody owns it
                        locks.giveBack(hold);
                    }
                });
            }
        }
    }

    private void startLease(Hold hold, long leaseMs) {
        if (hold.leaseTimer != null) {
            hold.leaseTimer.cancel(false);
            hold.leaseTimer = null;
        }
        hold.leaseEndNanos = 0;
        if (leaseMs > 0) {
            hold.leaseEndNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMs);
            hold.leaseTimer = locks.schedule(() -> leaseEnded(hold), leaseMs);
        }
    }

    private void leaseEnded(Hold hold) {
        guard.lock();
        try {
            if (isCurrent(hold) && hold.leaseEndNanos != 0 && System.nanoTime() - hold.leaseEndNanos >= 0) {
                lose(
                        hold,
                        "its lease of the fixed length ran out while it was held",
                        LockLeaseExpiredException.Loss.LEASE_RAN_OUT);
            }
        } finally {
            guard.unlock();
        }
    }

    private boolean isCurrent(Hold hold) {
        return exclusive == hold || readers.get(hold.owner) == hold;
    }

    /** Whether {@code hold} is still held by its owner: not released (nor kept after release), not lost. */
    boolean isLive(Hold hold) {
        guard.lock();
        try {
            return isCurrent(hold) && !hold.kept;
        } finally {
            guard.unlock();
        }
    }

    private void lose(Hold hold, String reason, LockLeaseExpiredException.Loss loss) {
        hold.loss = loss;
        hold.lossReason = reason;
        if (exclusive == hold) {
            exclusive = null;
        } else {
            readers.remove(hold.owner, hold);
        }
        lost.computeIfAbsent(hold.owner, t -> new ArrayList<>()).add(hold);
        signal();
        locks.leaseLost(hold, reason);
    }

    /**
     * Releases one hold count of the current thread; a last exclusive release within {@code holdAtLeastNanos}
     * of the grant leaves the lock taken by nobody until then (the lease ending first still wins).
     */
    void release(boolean read, long holdAtLeastNanos) {
        guard.lock();
        try {
            Object me = Thread.currentThread();
            Hold hold = held(read);
            if (hold == null) {
                List<Hold> gone = lost.get(me);
                Hold lostHold = gone == null
                        ? null
                        : gone.stream()
                                .filter(h -> isRead(h) == read)
                                .findFirst()
                                .orElse(null);
                if (lostHold != null) {
                    if (--lostHold.count == 0) {
                        gone.remove(lostHold);
                        if (gone.isEmpty()) {
                            lost.remove(me);
                        }
                    }
                    throw leaseExpired(lostHold);
                }
                throw new IllegalMonitorStateException("Lock '" + name + "' is not held by the current thread ("
                        + Thread.currentThread().getName() + "): only the owner can unlock it");
            }
            if (--hold.count > 0) {
                return;
            }
            releaseLast(hold, read, holdAtLeastNanos);
        } finally {
            guard.unlock();
        }
    }

    /** Releases a handle's hold (one count: handles do not re-enter), as {@link #release} releases a thread's. */
    void releaseHandle(Hold hold, long holdAtLeastNanos) {
        guard.lock();
        try {
            if (isLive(hold)) {
                releaseLast(hold, isRead(hold), holdAtLeastNanos);
                return;
            }
            List<Hold> gone = lost.get(hold.owner);
            if (gone != null && gone.remove(hold)) {
                lost.remove(hold.owner);
                throw leaseExpired(hold);
            }
            throw new IllegalStateException("Lock '" + name + "': the handle's hold was released already");
        } finally {
            guard.unlock();
        }
    }

    private LockLeaseExpiredException leaseExpired(Hold hold) {
        return new LockLeaseExpiredException(name, hold.lossReason, hold.loss);
    }

    private void releaseLast(Hold hold, boolean read, long holdAtLeastNanos) {
        long keepNanos = holdAtLeastNanos - (System.nanoTime() - hold.acquiredNanos);
        if (!read && keepNanos > 0) {
            if (hold.leaseEndNanos != 0) {
                keepNanos = Math.min(keepNanos, hold.leaseEndNanos - System.nanoTime());
            }
            if (hold.leaseTimer != null) {
                hold.leaseTimer.cancel(false);
            }
            hold.kept = true;
            hold.leaseTimer = locks.schedule(() -> keepEnded(hold), Math.max(1, (keepNanos + 999_999) / 1_000_000));
        } else {
            if (hold.leaseTimer != null) {
                hold.leaseTimer.cancel(false);
            }
            if (read) {
                readers.remove(hold.owner);
            } else {
                exclusive = null;
            }
            signal();
        }
        locks.listeners()
                .forEach(l -> l.onRelease(hold.info, Duration.ofNanos(System.nanoTime() - hold.acquiredNanos)));
    }

    private void keepEnded(Hold hold) {
        guard.lock();
        try {
            if (exclusive == hold) {
                exclusive = null;
                signal();
            }
        } finally {
            guard.unlock();
        }
    }

    private static boolean isRead(Hold hold) {
        return hold.info.type() == dev.distlock.core.LockType.READ;
    }

    /** The current thread's live hold (a kept one belongs to nobody), or null. */
    Hold held(boolean read) {
        guard.lock();
        try {
            Object me = Thread.currentThread();
            return read
                    ? readers.get(me)
                    : exclusive != null && exclusive.owner == me && !exclusive.kept ? exclusive : null;
        } finally {
            guard.unlock();
        }
    }

    boolean isLocked() {
        guard.lock();
        try {
            return exclusive != null || !readers.isEmpty();
        } finally {
            guard.unlock();
        }
    }

    /** The shortest fixed lease left among the holders; the watchdog lease for watchdog holds; zero when free. */
    Duration remainingLease(Duration watchdogLease) {
        guard.lock();
        try {
            List<Hold> all = new ArrayList<>(readers.values());
            if (exclusive != null) {
                all.add(exclusive);
            }
            long now = System.nanoTime();
            return all.stream()
                    .map(h ->
                            h.leaseEndNanos == 0 ? watchdogLease : Duration.ofNanos(Math.max(0, h.leaseEndNanos - now)))
                    .min(Duration::compareTo)
                    .orElse(Duration.ZERO);
        } finally {
            guard.unlock();
        }
    }

    /** Takes the lock from every holder; they learn it at their unlock. */
    boolean forceUnlock() {
        guard.lock();
        try {
            List<Hold> all = new ArrayList<>(readers.values());
            if (exclusive != null) {
                all.add(exclusive);
            }
            all.forEach(h -> {
                if (h.leaseTimer != null) {
                    h.leaseTimer.cancel(false);
                }
                if (h.kept) {
                    exclusive = null; // released already: nobody to tell
                    signal();
                } else {
                    lose(h, "it was force-unlocked", LockLeaseExpiredException.Loss.FORCE_UNLOCKED);
                }
            });
            return !all.isEmpty();
        } finally {
            guard.unlock();
        }
    }

    /** Threads and handles waiting in the fair queue; for tests. */
    int queued() {
        guard.lock();
        try {
            return fairQueue.size();
        } finally {
            guard.unlock();
        }
    }

    int activeHolds() {
        guard.lock();
        try {
            return readers.size() + (exclusive != null ? 1 : 0);
        } finally {
            guard.unlock();
        }
    }

    boolean idle() {
        guard.lock();
        try {
            return exclusive == null
                    && readers.isEmpty()
                    && fairQueue.isEmpty()
                    && waiters.isEmpty()
                    && writersWaiting.isEmpty()
                    && lost.isEmpty();
        } finally {
            guard.unlock();
        }
    }
}
