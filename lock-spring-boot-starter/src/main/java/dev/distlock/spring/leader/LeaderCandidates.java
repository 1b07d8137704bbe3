package dev.distlock.spring.leader;

import dev.distlock.core.LeaderCandidate;
import dev.distlock.core.LeaderListener;

/**
 * Makes the candidates of {@link LeaderElection}s: {@code LockClient::leader} in Redis mode, the local
 * lock client's in {@code distlock.mode=local}. The starter provides it as a bean; inject it to declare
 * a {@code LeaderElection} of your own in any mode.
 */
@FunctionalInterface
public interface LeaderCandidates {

    /** A candidate for {@code role} that tells {@code listener}; not started. */
    LeaderCandidate create(String role, LeaderListener listener);
}
