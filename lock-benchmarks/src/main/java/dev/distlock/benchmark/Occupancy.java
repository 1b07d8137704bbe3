package dev.distlock.benchmark;

import io.lettuce.core.api.sync.RedisStringCommands;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The mutual-exclusion check run inside every critical section: count who is inside, and flag a
 * violation when anyone else was. The same check runs for every library, so it costs them all the
 * same.
 */
interface Occupancy {

    /** The counter of {@code key}; resolved once per worker so the loop does no map look-up. */
    Slot slot(String key);

    interface Slot {
        /** Enters and leaves the critical section's counter; {@code false} when someone else was inside. */
        boolean enterAndLeave();
    }

    /** In-JVM check: an {@link AtomicInteger} per key. Only valid when all holders share this JVM. */
    static Occupancy local() {
        ConcurrentHashMap<String, AtomicInteger> counters = new ConcurrentHashMap<>();
        return key -> {
            AtomicInteger inside = counters.computeIfAbsent(key, k -> new AtomicInteger());
            return () -> {
                boolean alone = inside.incrementAndGet() == 1;
                inside.decrementAndGet();
                return alone;
            };
        };
    }

    /**
     * Cross-JVM check: INCRBY/DECRBY of an occupancy key in Redis through a plain connection that
     * no lock library uses, so it sees every holder of every process. INCRBY/DECRBY rather than
     * INCR/DECR because distlock's acquire script runs INCR itself, and the command statistics
     * must tell the check apart from the libraries' own commands. Costs two round trips inside
     * each critical section, identical for all libraries.
     */
    static Occupancy redis(RedisStringCommands<String, String> commands) {
        return key -> {
            String occupancyKey = "bench-occupancy:" + key;
            return () -> {
                boolean alone = commands.incrby(occupancyKey, 1) == 1;
                commands.decrby(occupancyKey, 1);
                return alone;
            };
        };
    }
}
