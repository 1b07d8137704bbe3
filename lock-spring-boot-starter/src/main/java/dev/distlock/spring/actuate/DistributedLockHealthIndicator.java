package dev.distlock.spring.actuate;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code distributedLock} health indicator on Spring Boot 4.x's health API (module
 * spring-boot-health). DOWN when locks cannot be taken because Redis does not answer the lock client
 * (its own connection, bounded by distlock.operation-timeout); UP otherwise. Details: the
 * mode, the holds listed by the endpoint, and recent lease losses (a lost lease is a warning sign, not
 * an outage, so it does not turn the status DOWN). On Spring Boot 3.5 the same is
 * {@link DistributedLockBoot3HealthIndicator}.
 */
public class DistributedLockHealthIndicator extends AbstractHealthIndicator {

    private final LockHealthCheck check;

    /** With the default timeout of distlock.health.timeout (1 s). */
    public DistributedLockHealthIndicator(LockSource source, ActiveHolds holds, RecentLeaseLosses losses, String mode) {
        this(source, holds, losses, mode, LockHealthCheck.DEFAULT_TIMEOUT);
    }

    /** @param timeout how long the check waits for Redis before it reports DOWN (distlock.health.timeout) */
    public DistributedLockHealthIndicator(
            LockSource source, ActiveHolds holds, RecentLeaseLosses losses, String mode, Duration timeout) {
        this(source, holds, losses, mode, timeout, Map::of);
    }

    /** @param leading the leader roles this instance leads now, with their terms (the starter's {@code Leadership}) */
    public DistributedLockHealthIndicator(
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
