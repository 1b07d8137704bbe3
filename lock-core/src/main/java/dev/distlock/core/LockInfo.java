package dev.distlock.core;

/**
 * Identifies a lock in {@link LockListener} events.
 *
 * @param name the lock name as given to the client (may be high-cardinality, for example {@code order:42})
 * @param label a low-cardinality name for metrics; the lock name unless one was given
 * @param kind the kind of lock, for example {@code reentrant}
 */
public record LockInfo(String name, String label, String kind) {
}
