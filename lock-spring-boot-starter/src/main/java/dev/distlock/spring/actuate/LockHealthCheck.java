package dev.distlock.spring.actuate;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What the {@code distributedLock} health indicator reports, whichever Spring Boot health API shows it
 * (4.x: {@link DistributedLockHealthIndicator}; 3.5: {@link DistributedLockBoot3HealthIndicator}): the
 * details, and whether Redis answers the lock client.
 */
final class LockHealthCheck {

    /** distlock.health.timeout's default: a health endpoint must answer before its pollers give up. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);

    /** Runs a check on a thread of its own, so a Redis that does not answer holds that thread, not the caller. */
    private static final Executor CHECKER = task -> {
        Thread thread = new Thread(task, "distlock-health-check");
        thread.setDaemon(true);
        thread.start();
    };

    private final LockSource source;
    private final ActiveHolds holds;
    private final RecentLeaseLosses losses;
    private final String mode;
    private final Duration timeout;
    private final Supplier<Map<String, Long>> leading;

    /**
     * The check still running, if any: a later health request waits for it rather than starting another, so
     * an outage polled every second blocks one thread (for the operation timeout), not one per request.
     */
    private CompletableFuture<Void> inFlight = CompletableFuture.completedFuture(null);

    LockHealthCheck(
            LockSource source,
            ActiveHolds holds,
            RecentLeaseLosses losses,
            String mode,
            Duration timeout,
            Supplier<Map<String, Long>> leading) {
        this.leading = leading;
        this.source = source;
        this.holds = holds;
        this.losses = losses;
        this.mode = mode;
        this.timeout = timeout;
    }

    /**
     * Reports to a health builder of either Boot line: the mode, the holds listed by the endpoint,
     * recent lease losses with their window, and the leader roles this instance leads (with their terms) as details; then up, or down with the error when the lock
     * client's own connection does not answer within distlock.health.timeout (or fails sooner).
     */
    void report(BiConsumer<String, Object> detail, Runnable up, Consumer<Throwable> down) {
        detail.accept("mode", mode);
        detail.accept("holds", holds.size());
        detail.accept("recentLeaseLosses", losses.recent());
        detail.accept("leaseLossWindow", losses.window().toString());
        detail.accept("leading", leading.get());
        try {
            check().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            down.accept(new IllegalStateException(
                    "Redis did not answer the lock client within distlock.health.timeout (" + timeout.toMillis()
                            + " ms): locks cannot be taken now (Redis down, paused or unreachable)",
                    e));
            return;
        } catch (ExecutionException e) {
            down.accept(e.getCause());
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            down.accept(e);
            return;
        }
        up.run();
    }

    private synchronized CompletableFuture<Void> check() {
        if (inFlight.isDone()) {
            inFlight = CompletableFuture.runAsync(source::check, CHECKER);
        }
        return inFlight;
    }

    /** The message Spring Boot logs when a check throws instead of reporting (it does not). */
    static final String FAILED = "Distributed lock health check failed";
}
