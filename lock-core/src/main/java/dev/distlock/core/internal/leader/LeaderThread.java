package dev.distlock.core.internal.leader;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A candidate's one thread ({@code distlock-leader-<role>}, a daemon, started on first use): calls its
 * listener one call at a time in the order the calls were made, and runs its timers. After
 * {@link #shutdown()} the calls already queued still run (so does a timer not cancelled: the candidate
 * cancels its one timer before it shuts the thread down); later ones are dropped.
 */
final class LeaderThread {

    private static final Logger log = LoggerFactory.getLogger(LeaderThread.class);

    private final String name;
    private final String role;
    private final ScheduledThreadPoolExecutor executor;

    LeaderThread(String role) {
        this.role = role;
        this.name = "distlock-leader-" + role;
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        this.executor.setRemoveOnCancelPolicy(true);
    }

    /** Calls the listener through {@code call} on this thread; what it throws is logged. */
    void tell(Runnable call) {
        try {
            executor.execute(() -> {
                try {
                    call.run();
                } catch (RuntimeException e) {
                    log.warn("Leader listener of role '{}' failed", role, e);
                }
            });
        } catch (RejectedExecutionException e) {
            log.debug("Leader candidate of role '{}' closed: listener not called", role);
        }
    }

    /** Runs {@code task} after {@code delayNanos}, then every {@code everyNanos} when positive; {@code null} once shut down. */
    @Nullable
    Future<?> schedule(Runnable task, long delayNanos, long everyNanos) {
        try {
            return everyNanos > 0
                    ? executor.scheduleWithFixedDelay(task, delayNanos, everyNanos, TimeUnit.NANOSECONDS)
                    : executor.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    void shutdown() {
        executor.shutdown();
    }

    /** Waits up to {@code timeout} for the queued calls, unless called from this thread (a listener closing its candidate). */
    void awaitCalls(Duration timeout) throws InterruptedException {
        if (!Thread.currentThread().getName().equals(name)) {
            executor.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
    }
}
