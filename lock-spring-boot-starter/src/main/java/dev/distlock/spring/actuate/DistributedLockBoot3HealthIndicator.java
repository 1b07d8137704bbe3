package dev.distlock.spring.actuate;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
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

    public DistributedLockBoot3HealthIndicator(
            LockSource source, ActiveHolds holds, RecentLeaseLosses losses, String mode) {
        super(LockHealthCheck.FAILED);
        this.check = new LockHealthCheck(source, holds, losses, mode);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        check.report(builder::withDetail, builder::up, builder::down);
    }
}
