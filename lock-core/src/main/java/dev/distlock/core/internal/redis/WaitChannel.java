package dev.distlock.core.internal.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A lock channel with the local waiters on it: threads, which sleep in {@link #await}, and async
 * acquisitions, which sleep on a future from {@link #sleep}. A wake-up that finds no sleeper is kept
 * for a registered waiter that is between two tries (never more than there are waiters), so it
 * cannot be lost. Kept by {@link WakeupHub}, one per subscribed channel. Internal: not part of the public API.
 */
public final class WaitChannel {
    final String name;
    final CompletableFuture<Void> subscribed;
    final AtomicInteger waiting = new AtomicInteger();
    /** Guarded by this; held only for a few non-blocking steps, never around a wait. */
    private final ArrayDeque<CompletableFuture<Boolean>> sleepers = new ArrayDeque<>();
    /** Wake-ups kept for waiters not asleep when they came; guarded by this. */
    private int kept;
    // Guarded by the map's lock for this channel (refs read without it for diagnostics only).
    volatile int refs;
    /** A check that closes it once idle is scheduled. */
    boolean closing;

    long idleSinceNanos;

    WaitChannel(String name, CompletableFuture<Void> subscribed) {
        this.name = name;
        this.subscribed = subscribed;
    }

    /** Completes once Redis confirmed the subscription; a release after that is never missed. */
    public CompletableFuture<Void> subscribed() {
        return subscribed;
    }

    /**
     * Sleeps until woken or {@code nanos} pass.
     *
     * @return whether a wake-up arrived
     */
    public boolean await(long nanos, boolean interruptible) throws InterruptedException {
        CompletableFuture<Boolean> sleep = sleep();
        long deadline = System.nanoTime() + nanos;
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return sleep.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    return !stopSleeping(sleep); // not found: a wake-up took it meanwhile
                } catch (ExecutionException | CancellationException e) {
                    return false;
                } catch (InterruptedException e) {
                    if (interruptible) {
                        cancel(sleep);
                        throw e;
                    }
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Sleeps without a thread: the future completes with {@code true} when woken, or {@code false}
     * after {@code nanos} (measured on {@code timers}). Give it up early with {@link #cancel}.
     */
    public CompletableFuture<Boolean> sleep(long nanos, ScheduledExecutorService timers) {
        CompletableFuture<Boolean> sleep = sleep();
        if (!sleep.isDone()) {
            try {
                ScheduledFuture<?> timer = timers.schedule(() -> cancel(sleep), nanos, TimeUnit.NANOSECONDS);
                sleep.whenComplete((woken, error) -> timer.cancel(false));
            } catch (RejectedExecutionException e) { // the client is closing: wake at once, the caller finds it closed
                cancel(sleep);
            }
        }
        return sleep;
    }

    /** Gives up a sleep; a wake-up it already took goes on to another waiter. */
    public void cancel(CompletableFuture<Boolean> sleep) {
        if (stopSleeping(sleep)) {
            sleep.complete(false);
        } else if (Boolean.TRUE.equals(sleep.getNow(false))) {
            wake(false);
        }
    }

    private synchronized CompletableFuture<Boolean> sleep() {
        if (kept > 0) {
            kept--;
            return CompletableFuture.completedFuture(true);
        }
        CompletableFuture<Boolean> sleep = new CompletableFuture<>();
        sleepers.add(sleep);
        return sleep;
    }

    /** Removes a sleeper; false when a wake-up took it first. */
    private synchronized boolean stopSleeping(CompletableFuture<Boolean> sleep) {
        return sleepers.remove(sleep);
    }

    void wake(boolean all) {
        List<CompletableFuture<Boolean>> woken = new ArrayList<>();
        synchronized (this) {
            if (all) {
                woken.addAll(sleepers);
                sleepers.clear();
                kept = Math.max(0, waiting.get() - woken.size());
            } else if (!sleepers.isEmpty()) {
                woken.add(sleepers.poll());
            } else if (kept < waiting.get()) {
                kept++;
            }
        }
        woken.forEach(sleep -> sleep.complete(true)); // outside the lock: completion runs the sleeper's next step
    }

    /** A waiter left: no more kept wake-ups than there are waiters. */
    synchronized void left() {
        kept = Math.min(kept, Math.max(0, waiting.get()));
    }
}
