package dev.distlock.spring.leader;

/**
 * Published when this instance's leadership of {@code role} ends (yielded, stopped with the context,
 * lost, or given up because no renewal was confirmed in time), on the candidate's thread. Stop the
 * leader's work when it comes.
 *
 * @param role the role
 * @param term the term of the leadership that ended
 * @param reason why it ended, for logs
 */
public record LeadershipRevokedEvent(String role, long term, String reason) {}
