package dev.distlock.spring.leader;

import dev.distlock.core.LeaderCandidate;
import dev.distlock.core.LeaderListener;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;

/**
 * This instance's candidacy for one role, as a lifecycle bean: it stands when the application context
 * starts and steps down (releasing the leadership at once, so another instance takes over) when it
 * stops. Publishes a {@link LeadershipGrantedEvent} and a {@link LeadershipRevokedEvent} for every
 * leadership. The starter declares one per role of {@code distlock.leader.roles}; declare one yourself
 * for a role configured in code:
 *
 * <pre>{@code
 * @Bean
 * LeaderElection reportScheduler(LeaderCandidates candidates) {
 *     return new LeaderElection("report-scheduler", candidates);
 * }
 * }</pre>
 */
public final class LeaderElection implements SmartLifecycle, ApplicationEventPublisherAware {

    /**
     * The lifecycle phase: just above the lock client's, so candidates stand once it is up and step down
     * before it closes, yet after web servers and executors stopped taking work.
     */
    public static final int PHASE = 1025;

    private final String role;
    private final LeaderCandidates candidates;
    private volatile ApplicationEventPublisher publisher = event -> {};
    private volatile @Nullable LeaderCandidate candidate;

    /**
     * @param role the role, for example {@code billing-consumer}
     * @param candidates where the candidate comes from (the starter's {@link LeaderCandidates} bean)
     */
    public LeaderElection(String role, LeaderCandidates candidates) {
        this.role = role;
        this.candidates = candidates;
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    /** The role. */
    public String role() {
        return role;
    }

    /** Whether this instance leads the role now, by its local lease clock; see {@link LeaderCandidate#isLeader()}. */
    public boolean isLeader() {
        LeaderCandidate c = candidate;
        return c != null && c.isLeader();
    }

    /** The term of this instance's leadership while it leads, else empty. */
    public OptionalLong term() {
        LeaderCandidate c = candidate;
        return c == null ? OptionalLong.empty() : c.term();
    }

    /** Hands the leadership on; see {@link LeaderCandidate#yieldLeadership()}. Returns whether this instance led. */
    public boolean yieldLeadership() {
        LeaderCandidate c = candidate;
        return c != null && c.yieldLeadership();
    }

    @Override
    public synchronized void start() {
        if (candidate == null) {
            LeaderCandidate c = candidates.create(role, new LeaderListener() {
                @Override
                public void granted(String role, long term) {
                    publisher.publishEvent(new LeadershipGrantedEvent(role, term));
                }

                @Override
                public void revoked(String role, long term, String reason) {
                    publisher.publishEvent(new LeadershipRevokedEvent(role, term, reason));
                }
            });
            c.start();
            candidate = c;
        }
    }

    @Override
    public synchronized void stop() {
        LeaderCandidate c = candidate;
        candidate = null;
        if (c != null) {
            c.close();
        }
    }

    @Override
    public boolean isRunning() {
        return candidate != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    @Override
    public String toString() {
        return "LeaderElection[" + role + (isLeader() ? ", leader, term " + term().getAsLong() : "") + "]";
    }
}
