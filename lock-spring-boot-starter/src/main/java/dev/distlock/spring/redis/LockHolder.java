package dev.distlock.spring.redis;

/**
 * One holder of a lock as its Redis hash shows it. Infrastructure of the starter, not API.
 *
 * @param owner the owner id, {@code <client id>:<thread id or hN for a handle>}
 * @param clientId the lock client that holds it (one per application instance)
 * @param kind EXCLUSIVE (a reentrant or fair lock), WRITE, READ or SEMAPHORE
 * @param token the hold's fencing token, or null when the hash has none
 */
public record LockHolder(String owner, String clientId, String kind, Long token) {}
