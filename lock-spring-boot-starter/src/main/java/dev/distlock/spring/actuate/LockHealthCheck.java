package dev.distlock.spring.actuate;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * What the {@code distributedLock} health indicator reports, whichever Spring Boot health API shows it
 * (4.x: {@link DistributedLockHealthIndicator}; 3.5: {@link DistributedLockBoot3HealthIndicator}): the
 * details, and whether Redis answers the lock client.
 */
final class LockHealthCheck {

    private final LockSource source;
    private final ActiveHolds holds;
    private final RecentLeaseLosses losses;
    private final String mode;

    LockHealthCheck(LockSource source, ActiveHolds holds, RecentLeaseLosses losses, String mode) {
        this.source = source;
        this.holds = holds;
        this.losses = losses;
        this.mode = mode;
    }

    /**
     * Reports to a health builder of either Boot line: the mode, the holds listed by the endpoint and
     * recent lease losses with their window as details; then up, or down with the error when the lock
     * client's own connection does not answer within distlock.operation-timeout.
     */
    void report(BiConsumer<String, Object> detail, Runnable up, Consumer<Throwable> down) {
        detail.accept("mode", mode);
        detail.accept("holds", holds.size());
        detail.accept("recentLeaseLosses", losses.recent());
        detail.accept("leaseLossWindow", losses.window().toString());
        try {
            source.check();
        } catch (RuntimeException e) {
            down.accept(e);
            return;
        }
        up.run();
    }

    /** The message Spring Boot logs when a check throws instead of reporting (it does not). */
    static final String FAILED = "Distributed lock health check failed";
}
