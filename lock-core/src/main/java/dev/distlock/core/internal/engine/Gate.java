package dev.distlock.core.internal.engine;

import dev.distlock.core.internal.engine.LocalGates.Baton;
import dev.distlock.core.internal.engine.LocalGates.Entry;
import dev.distlock.core.internal.engine.LocalGates.Pass;
import dev.distlock.core.internal.lease.Lease;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * The permit of one lock name at its {@link LocalGates} entry, handed on in arrival order to threads
 * and handles that wait for it.
 */
final class Gate {

    /** How often a waiter looks again while the permit's thread has no hold yet (it is still waiting in Redis). */
    private static final long RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    /**
     * How long a waiter sleeps before it looks again: until the holder's lease ends (it may be lost; no
     * polling, which with thousands of waiters would cost more than the lock itself), or now and then
     * while the permit's caller has no hold yet (it still waits in Redis).
     */
    private static long sleepSlice(@Nullable Hold current, long now) {
        return current == null
                ? RECHECK_NANOS
                : Math.max(0, current.validUntilNanos - now) + TimeUnit.MILLISECONDS.toNanos(1);
    }

    /**
     * Whether the permit's holder will never pass it on: its lease ran out or was lost before it was
     * released. A released holder is handing the permit on: wait for it.
     */
    private static boolean abandoned(@Nullable Hold holder, long now) {
        return holder != null && !holder.released && holder.runOut(now);
    }

    /**
     * One waiting thread, or one async handle ({@code future}); {@code outcome} is set (under the gate's
     * lock) when the permit is handed to it.
     */
    private static final class Waiter {
        final @Nullable Thread thread;
        final @Nullable CompletableFuture<Entry> future;
        final Lease lease;
        volatile @Nullable Entry outcome;
        volatile @Nullable ScheduledFuture<?> check;

        Waiter(Lease lease, @Nullable CompletableFuture<Entry> future) {
            this.lease = lease;
            this.future = future;
            this.thread = future == null ? Thread.currentThread() : null;
        }

        /**
         * Tells the waiter its {@code outcome} (set already); false when it is a handle that stopped
         * waiting (its future cancelled) before it heard: the outcome must then go to the next one.
         */
        boolean tell(Entry outcome) {
            if (future == null) {
                LockSupport.unpark(thread);
                return true;
            }
            return future.complete(outcome);
        }
    }

    /** Waiting callers, made when the first one comes (most gates never have one). */
    private @Nullable ArrayDeque<Waiter> queue; // guarded by this

    private boolean taken; // guarded by this

    private final LocalGates owner;
    /** The hold that owns the permit, once granted in Redis. */
    volatile Hold holder;

    int users; // guarded by the map's lock for this key

    /** The queue, made on first use; call holding this gate's monitor. */
    private ArrayDeque<Waiter> waiters() {
        if (queue == null) {
            queue = new ArrayDeque<>(4);
        }
        return queue;
    }

    Gate(LocalGates owner) {
        this.owner = owner;
    }

    /**
     * Waits for the permit until {@code deadline} (System.nanoTime), or until its holder's lease is
     * gone. A waiter asking for {@code lease} may be handed a grant with that lease.
     */
    Entry enter(long deadline, boolean interruptible, Lease lease) throws InterruptedException {
        Waiter me;
        synchronized (this) {
            if (owner.closed) {
                return Entry.BYPASS;
            }
            if (!taken) {
                taken = true;
                return Entry.PERMIT;
            }
            me = new Waiter(lease, null);
            waiters().addLast(me);
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
                boolean abandoned = abandoned(current, now);
                long remaining = deadline - now;
                if (abandoned || remaining <= 0 || (interrupted && interruptible)) {
                    Entry left = leave(me, abandoned ? Entry.BYPASS : Entry.TIMEOUT);
                    if (left.pass() == Pass.TIMEOUT && interrupted && interruptible) {
                        throw new InterruptedException("Interrupted while waiting for a lock");
                    }
                    return left;
                }
                // Sleep until the permit comes or the holder's lease ends (see sleepSlice).
                LockSupport.parkNanos(this, Math.min(remaining, sleepSlice(current, now)));
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

    /**
     * {@link #enter} for an async handle: the future completes with how it passed, on the thread that
     * handed the permit on or on {@code timers} (the wait ran out, the holder's lease ended).
     * Cancelling it leaves the queue; a permit handed on at that moment goes to the next waiter.
     */
    CompletableFuture<Entry> enterAsync(long deadline, Lease lease, ScheduledExecutorService timers) {
        Waiter me;
        synchronized (this) {
            if (owner.closed) {
                return CompletableFuture.completedFuture(Entry.BYPASS);
            }
            if (!taken) {
                taken = true;
                return CompletableFuture.completedFuture(Entry.PERMIT);
            }
            me = new Waiter(lease, new CompletableFuture<>());
            waiters().addLast(me);
        }
        CompletableFuture<Entry> future = me.future;
        future.whenComplete((entry, error) -> {
            ScheduledFuture<?> check = me.check;
            if (check != null) {
                check.cancel(false);
            }
            if (error != null) {
                leave(me, Entry.TIMEOUT); // cancelled: an outcome set meanwhile fails to tell it and moves on
            }
        });
        look(me, deadline, timers);
        return future;
    }

    /** What {@link #enter}'s loop does once for a handle: leave on time-out or an abandoned holder, or look again later. */
    private void look(Waiter me, long deadline, ScheduledExecutorService timers) {
        CompletableFuture<Entry> future = me.future;
        if (future.isDone() || me.outcome != null) {
            return;
        }
        long now = System.nanoTime();
        Hold current = holder;
        boolean abandoned = abandoned(current, now);
        long remaining = deadline - now;
        if (abandoned || remaining <= 0) {
            Entry why = abandoned ? Entry.BYPASS : Entry.TIMEOUT;
            synchronized (this) {
                if (me.outcome != null) {
                    return; // handed the permit meanwhile: the hander tells it
                }
                waiters().remove(me);
                me.outcome = why;
            }
            future.complete(why);
            return;
        }
        long slice = Math.min(remaining, sleepSlice(current, now));
        try {
            me.check = timers.schedule(() -> look(me, deadline, timers), slice, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            // The client is closing: close() lets every waiter out.
        }
        if (future.isDone()) {
            ScheduledFuture<?> check = me.check;
            if (check != null) {
                check.cancel(false);
            }
        }
    }

    /** Leaves the queue with {@code why}, unless the permit was handed over meanwhile: then that. */
    private Entry leave(Waiter me, Entry why) {
        synchronized (this) {
            Entry outcome = me.outcome;
            if (outcome != null) {
                return outcome;
            }
            waiters().remove(me);
            return why;
        }
    }

    /** Hands the permit to the next local waiter (it acquires in Redis), or frees it. */
    public void exit() {
        holder = null;
        while (true) {
            Waiter next;
            synchronized (this) {
                next = queue == null ? null : queue.pollFirst();
                if (next == null) {
                    taken = false;
                    return;
                }
                next.outcome = Entry.PERMIT;
            }
            if (next.tell(Entry.PERMIT)) {
                return;
            }
        }
    }

    /**
     * Hands the permit and {@code baton} to the next local waiter when there is one and it asked for
     * the baton's lease; returns whether it did (otherwise the permit stays with the caller).
     */
    boolean handOn(Baton baton) {
        while (true) {
            Waiter next;
            Entry handed = new Entry(Pass.HANDED_ON, baton);
            synchronized (this) {
                next = queue == null ? null : queue.peekFirst();
                if (next == null || owner.closed || !next.lease.equals(baton.lease())) {
                    return false;
                }
                waiters().pollFirst();
                holder = null;
                next.outcome = handed;
            }
            if (next.tell(handed)) {
                return true;
            }
        }
    }

    void releaseAll() {
        List<Waiter> all;
        synchronized (this) {
            all = queue == null ? List.of() : new ArrayList<>(queue);
            all.forEach(w -> w.outcome = Entry.BYPASS);
            queue = null;
        }
        all.forEach(w -> w.tell(Entry.BYPASS));
    }

    int queued() {
        synchronized (this) {
            return queue == null ? 0 : queue.size();
        }
    }
}
