package dev.distlock.spring.metrics;

import dev.distlock.spring.leader.LeadershipGrantedEvent;
import dev.distlock.spring.leader.LeadershipRevokedEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import org.springframework.context.event.EventListener;

/**
 * Counts leaderships granted to and revoked from this instance, per role ({@link LockMetrics#LEADER_GRANTED},
 * {@link LockMetrics#LEADER_REVOKED}), from the events the starter's leader elections publish. Infrastructure
 * of the starter, not API.
 */
public final class LeadershipMetrics {

    private final MeterRegistry registry;

    public LeadershipMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Both counters of each role at zero, so dashboards see them before the first election. */
    public void registerRoles(Collection<String> roles) {
        roles.forEach(role -> {
            counter(LockMetrics.LEADER_GRANTED, role);
            counter(LockMetrics.LEADER_REVOKED, role);
        });
    }

    @EventListener
    public void granted(LeadershipGrantedEvent event) {
        counter(LockMetrics.LEADER_GRANTED, event.role()).increment();
    }

    @EventListener
    public void revoked(LeadershipRevokedEvent event) {
        counter(LockMetrics.LEADER_REVOKED, event.role()).increment();
    }

    private Counter counter(String name, String role) {
        return Counter.builder(name)
                .tag(LockMetrics.ROLE, role)
                .description(
                        name.equals(LockMetrics.LEADER_GRANTED)
                                ? "Leaderships this instance was granted"
                                : "Leaderships of this instance that ended")
                .register(registry);
    }
}
