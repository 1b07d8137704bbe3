package dev.distlock.spring.leader;

/**
 * Published when this instance becomes leader of {@code role}, on the candidate's thread
 * ({@code distlock-leader-<role>}). Listen with {@code @EventListener}.
 *
 * @param role the role
 * @param term the leadership's term: the fencing token of the role's lock, larger than every term before;
 *     stamp writes with it so a store keeping the highest term refuses a deposed leader
 */
public record LeadershipGrantedEvent(String role, long term) {}
