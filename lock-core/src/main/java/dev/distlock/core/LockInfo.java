package dev.distlock.core;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Identifies a lock in {@link LockListener} events. The vocabulary is the same everywhere (API,
 * annotation, metrics, docs): the <em>key</em> is what is locked (resolved, may be high-cardinality,
 * for example {@code order:42}), the <em>name</em> is what the lock is called in metrics and traces
 * (low-cardinality, for example {@code order-payment}), and the <em>type</em> is the kind of lock.
 *
 * @param key the lock's key, as given to the client
 * @param name the low-cardinality name for metrics and traces; the key unless one was given
 * @param type the type of lock
 * @param timedByCaller whether the caller times this lock's acquisitions and releases itself (locks of a
 *     {@link LockClient#timedByCaller()} view, as the Spring starter takes them), so that a metrics
 *     listener leaves {@link LockListener#onAcquire} and {@link LockListener#onRelease} to it and counts
 *     each call once; renewals and lease losses are the listener's to count either way
 * @param maxHold how long the watchdog renews one hold of this lock at most ({@link LockClientOptions#maxHold()},
 *     or that of the {@link LockClient#withMaxHold} view the lock came from); {@code null}: no cap
 */
public record LockInfo(
        String key,
        String name,
        LockType type,
        boolean timedByCaller,
        @Nullable Duration maxHold) {

    /** A lock whose acquisitions and releases nobody else times, and whose holds are not capped. */
    public LockInfo(String key, String name, LockType type) {
        this(key, name, type, false, null);
    }

    /** A lock whose holds are not capped. */
    public LockInfo(String key, String name, LockType type, boolean timedByCaller) {
        this(key, name, type, timedByCaller, null);
    }
}
