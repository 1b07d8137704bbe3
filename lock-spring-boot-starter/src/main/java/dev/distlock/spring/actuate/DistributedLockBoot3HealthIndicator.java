package dev.distlock.spring.actuate;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;

/**
 * The {@code distributedLock} health indicator on Spring Boot 3.5's health API (package
 * {@code org.springframework.boot.actuate.health}, gone in 4.x): the same status and details as
 * {@link DistributedLockHealthIndicator}, which serves Spring Boot 4.x. The starter registers the one
 * whose API is on the classpath.
 */
public class DistributedLockBoot3HealthIndicator extends AbstractHealthIndicator {

    private final LockHealthCheck check;

    /** With the default timeout of distlock.health.timeout (1 s). */
    public DistributedLockBoot3HealthIndicator(
            LockSource source, ActiveHolds holds, RecentLeaseLosses losses, String mode) {
        this(source, holds, losses, mode, LockHealthCheck.DEFAULT_TIMEOUT);
    }

    /** @param timeout how long the check waits for Redis before it reports DOWN (distlock.health.timeout) */
    public DistributedLockBoot3HealthIndicator(
            LockSource source, ActiveHolds holds, RecentLeaseLosses losses, String mode, Duration timeout) {
        this(source, holds, losses, mode, timeout, Map::of);
    }

    /** @param leading the leader roles this instance leads now, with their terms (the starter's {@code Leadership}) */
    public DistributedLockBoot3HealthIndicator(
            LockSource source,
            ActiveHolds holds,
            RecentLeaseLosses losses,
            String mode,
            Duration timeout,
            Supplier<Map<String, Long>> leading) {
        super(LockHealthCheck.FAILED);
        this.check = new LockHealthCheck(source, holds, losses, mode, timeout, leading);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        check.report(builder::withDetail, builder::up, builder::down);
    }
}
