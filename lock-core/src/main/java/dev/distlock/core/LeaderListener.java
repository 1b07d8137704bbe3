package dev.distlock.core;

/**
 * Told when a {@link LeaderCandidate} becomes leader of its role and when that leadership ends. Called
 * on the candidate's own thread ({@code distlock-leader-<role>}), one call at a time and in order: a
 * {@code revoked} always follows the {@code granted} of the same term. A listener may block (that only
 * delays the candidate's later calls); an exception it throws is logged and otherwise ignored.
 *
 * <pre>{@code
 * LeaderCandidate candidate = client.leader("billing-consumer", new LeaderListener() {
 *     public void granted(String role, long term) {
 *         consumer.start(term);
 *     }
 *
 *     public void revoked(String role, long term, String reason) {
 *         consumer.stop();
 *     }
 * });
 * }</pre>
 */
public interface LeaderListener {

    /**
     * This candidate leads {@code role} from now on; {@code term} is the fencing token of its leadership,
     * larger than every term granted for the role before.
     */
    default void granted(String role, long term) {}

    /**
     * The leadership of {@code term} ended: yielded, closed, lost (renewal found the lock gone or taken),
     * or given up because no renewal was confirmed in time (Redis unreachable, the process paused).
     * {@code reason} says which, for logs.
     */
    default void revoked(String role, long term, String reason) {}
}
