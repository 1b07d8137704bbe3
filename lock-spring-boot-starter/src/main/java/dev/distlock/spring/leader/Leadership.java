package dev.distlock.spring.leader;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Which roles this instance leads: ask it before doing a leader's work, and stamp that work with the
 * term. Covers every {@link LeaderElection} bean, those of {@code distlock.leader.roles} and your own.
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 60_000)
 * void sendReports() {
 *     leadership.term("report-scheduler").ifPresent(reports::sendAll);
 * }
 * }</pre>
 */
public final class Leadership {

    private final Supplier<List<LeaderElection>> elections;

    /** Over the elections {@code elections} lists when asked (the starter passes the context's beans). */
    public Leadership(Supplier<List<LeaderElection>> elections) {
        this.elections = elections;
    }

    /**
     * Whether this instance leads {@code role} now, by its local lease clock.
     *
     * @throws IllegalArgumentException when this instance stands for no such role
     */
    public boolean isLeader(String role) {
        return election(role).isLeader();
    }

    /**
     * The term of this instance's leadership of {@code role} while it leads, else empty.
     *
     * @throws IllegalArgumentException when this instance stands for no such role
     */
    public OptionalLong term(String role) {
        return election(role).term();
    }

    /**
     * Hands the leadership of {@code role} on to another instance, when this one leads it.
     *
     * @throws IllegalArgumentException when this instance stands for no such role
     */
    public boolean yieldLeadership(String role) {
        return election(role).yieldLeadership();
    }

    /** The roles this instance stands for, sorted. */
    public Set<String> roles() {
        Set<String> roles = new TreeSet<>();
        elections.get().forEach(e -> roles.add(e.role()));
        return roles;
    }

    /** The roles this instance leads now, with the term of each, sorted by role. */
    public Map<String, Long> leading() {
        Map<String, Long> leading = new LinkedHashMap<>();
        for (String role : roles()) {
            term(role).ifPresent(term -> leading.put(role, term));
        }
        return leading;
    }

    private LeaderElection election(String role) {
        return elections.get().stream()
                .filter(e -> e.role().equals(role))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "This instance stands for no leader role '" + role + "' (its roles: " + roles()
                                + "): add it to distlock.leader.roles, or declare a LeaderElection bean for it"));
    }
}
