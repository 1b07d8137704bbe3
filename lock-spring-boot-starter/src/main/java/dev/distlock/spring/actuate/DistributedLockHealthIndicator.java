package dev.distlock.spring.actuate;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import java.util.List;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * DOWN when locks cannot be taken because Redis does not answer the lock client (its own
 * connection, bounded by distributed-lock.operation-timeout); UP otherwise. Details: the mode,
 * the holds listed by the endpoint, and recent lease losses (a lost lease is a warning sign, not an
 * outage, so it does not turn the status DOWN).
 */
public class DistributedLockHealthIndicator extends AbstractHealthIndicator {

    private final LockSource source;
    private final ActiveHolds holds;
    private final RecentLeaseLosses losses;
    private final String mode;

    public DistributedLockHealthIndicator(LockSource source, ActiveHolds holds, RecentLeaseLosses losses, String mode) {
        super("Distributed lock health check failed");
        this.source = source;
        this.holds = holds;
        this.losses = losses;
        this.mode = mode;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        builder.withDetail("mode", mode).withDetail("holds", holds.size());
        List<RecentLeaseLosses.Loss> recent = losses.recent();
        builder.withDetail("recentLeaseLosses", recent)
                .withDetail("leaseLossWindow", losses.window().toString());
        try {
            source.check();
            builder.up();
        } catch (RuntimeException e) {
            builder.down(e);
        }
    }
}
