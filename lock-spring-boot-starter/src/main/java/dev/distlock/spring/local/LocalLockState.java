package dev.distlock.spring.local;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockLeaseExpiredException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The in-JVM state of one lock name: the exclusive holder (reentrant, fair or write), the read
 * holders, the fair queue and the fencing counter. Every method runs under this object's monitor;
 * waiters wait on it. Mirrors the Redis kinds' rules: reentrant per thread, a writer may also read,
 * a reader may not upgrade, fair grants in arrival order, a fixed lease ends the hold.
 */
final class LocalLockState {

    /** One thread's hold; {@code leaseEndNanos == 0} for the watchdog lease (never ends while the JVM runs). */
    static final class Hold {
        final Thread thread = Thread.currentThread();
        final LockInfo info;
        final long token;
        final long acquiredNanos = System.nanoTime();
        int count = 1;
        /** Released with hold-at-least: the lock stays taken by nobody until its timer ends it. */
        boolean kept;

        long leaseEndNanos;
        ScheduledFuture<?> leaseTimer;

        Hold(LockInfo info, long token) {
            this.info = info;
            this.token = token;
        }
    }

    final String name;
    private final LocalLocks locks;
    private Hold exclusive;
    private final Map<Thread, Hold> readers = new HashMap<>();
    private final ArrayDeque<Thread> fairQueue = new ArrayDeque<>();
    /** Holds lost while held (lease ran out, force-unlocked), until their owner's unlock reports it. */
    private final Map<Thread, List<Hold>> lost = new HashMap<>();
    /** Calls using this state now; changed only inside {@link LocalLocks}' map operations. */
    int users;

    LocalLockState(String name, LocalLocks locks) {
        this.name = name;
        this.locks = locks;
    }

    /** Waits up to {@code waitNanos} (negative: for ever); returns the hold, or null when the wait ran out. */
    synchronized Hold acquire(
            LockInfo info, boolean read, boolean fair, long leaseMs, long waitNanos, boolean interruptible)
            throws InterruptedException {
        Thread me = Thread.currentThread();
        Hold mine = held(read);
        if (mine != null) {
            mine.count++;
            startLease(mine, leaseMs);
            return mine;
        }
        if (!read && readers.containsKey(me)) {
            throw new IllegalStateException(
                    "Lock '" + name + "': the current owner holds the read lock and cannot upgrade to the write"
                            + " lock (it would wait for itself); release every read hold first, or take the write lock first and downgrade");
        }
        if (fair) {
            fairQueue.addLast(me);
        }
        long deadline = System.nanoTime() + waitNanos;
        try {
            while (true) {
                boolean free = read
                        ? exclusive == null || exclusive.thread == me
                        : exclusive == null && readers.isEmpty() && (!fair || fairQueue.peekFirst() == me);
                if (free) {
                    Hold hold = new Hold(info, locks.nextToken());
                    if (read) {
                        readers.put(me, hold);
                    } else {
                        exclusive = hold;
                    }
                    startLease(hold, leaseMs);
                    return hold;
                }
                long left = waitNanos < 0 ? Long.MAX_VALUE : deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                try {
                    if (waitNanos < 0) {
                        wait();
                    } else {
                        TimeUnit.NANOSECONDS.timedWait(this, left);
                    }
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    me.interrupt(); // keep the flag for later; lock() is not interruptible
                }
            }
        } finally {
            if (fair && fairQueue.remove(me)) {
                notifyAll(); // the next in line may go now
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

    private synchronized void leaseEnded(Hold hold) {
        if (isCurrent(hold) && hold.leaseEndNanos != 0 && System.nanoTime() - hold.leaseEndNanos >= 0) {
            lose(hold, "its lease of the fixed length ran out while it was held");
        }
    }

    private boolean isCurrent(Hold hold) {
        return exclusive == hold || readers.get(hold.thread) == hold;
    }

    private void lose(Hold hold, String reason) {
        if (exclusive == hold) {
            exclusive = null;
        } else {
            readers.remove(hold.thread, hold);
        }
        lost.computeIfAbsent(hold.thread, t -> new ArrayList<>()).add(hold);
        notifyAll();
        locks.leaseLost(hold, reason);
    }

    /**
     * Releases one hold count of the current thread; a last exclusive release within {@code holdAtLeastNanos}
     * of the grant leaves the lock taken by nobody until then (the lease ending first still wins).
     */
    synchronized void release(boolean read, long holdAtLeastNanos) {
        Thread me = Thread.currentThread();
        Hold hold = held(read);
        if (hold == null) {
            List<Hold> gone = lost.get(me);
            Hold lostHold = gone == null
                    ? null
                    : gone.stream().filter(h -> isRead(h) == read).findFirst().orElse(null);
            if (lostHold != null) {
                if (--lostHold.count == 0) {
                    gone.remove(lostHold);
                    if (gone.isEmpty()) {
                        lost.remove(me);
                    }
                }
                throw new LockLeaseExpiredException(
                        name, "it was no longer held when unlocking (lease ran out or force-unlocked)");
            }
            throw new IllegalMonitorStateException("Lock '" + name + "' is not held by the current thread ("
                    + me.getName() + "): only the owner can unlock it");
        }
        if (--hold.count > 0) {
            return;
        }
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
                readers.remove(me);
            } else {
                exclusive = null;
            }
            notifyAll();
        }
        locks.listeners()
                .forEach(l -> l.onRelease(hold.info, Duration.ofNanos(System.nanoTime() - hold.acquiredNanos)));
    }

    private synchronized void keepEnded(Hold hold) {
        if (exclusive == hold) {
            exclusive = null;
            notifyAll();
        }
    }

    private static boolean isRead(Hold hold) {
        return hold.info.type() == dev.distlock.core.LockType.READ;
    }

    /** The current thread's live hold (a kept one belongs to nobody), or null. */
    synchronized Hold held(boolean read) {
        Thread me = Thread.currentThread();
        return read
                ? readers.get(me)
                : exclusive != null && exclusive.thread == me && !exclusive.kept ? exclusive : null;
    }

    synchronized boolean isLocked() {
        return exclusive != null || !readers.isEmpty();
    }

    /** The shortest fixed lease left among the holders; the watchdog lease for watchdog holds; zero when free. */
    synchronized Duration remainingLease(Duration watchdogLease) {
        List<Hold> all = new ArrayList<>(readers.values());
        if (exclusive != null) {
            all.add(exclusive);
        }
        long now = System.nanoTime();
        return all.stream()
                .map(h -> h.leaseEndNanos == 0 ? watchdogLease : Duration.ofNanos(Math.max(0, h.leaseEndNanos - now)))
                .min(Duration::compareTo)
                .orElse(Duration.ZERO);
    }

    /** Takes the lock from every holder; they learn it at their unlock. */
    synchronized boolean forceUnlock() {
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
                notifyAll();
            } else {
                lose(h, "it was force-unlocked");
            }
        });
        return !all.isEmpty();
    }

    /** Threads waiting in the fair queue; for tests. */
    synchronized int queued() {
        return fairQueue.size();
    }

    synchronized int activeHolds() {
        return readers.size() + (exclusive != null ? 1 : 0);
    }

    synchronized boolean idle() {
        return exclusive == null && readers.isEmpty() && fairQueue.isEmpty() && lost.isEmpty();
    }
}
