package dev.distlock.core.internal.engine;

import dev.distlock.core.LockType;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.redis.LockKeys;
import java.util.EnumMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A local queue in front of Redis: per lock name, one permit in this JVM. Only the caller holding
 * the permit tries the lock in Redis; the others wait here, in arrival order and without a round trip
 * each, until the holder releases or gives up. Threads and async handles queue alike (a thread parks,
 * a handle waits on a future: {@link Gate#enterAsync}), so a handle takes its turn among the threads.
 * A holder releasing while others wait may hand its grant in Redis to the first of them ({@link
 * Baton}: lock cohorting) instead of releasing it in Redis. A holder whose lease ran out or was lost
 * no longer counts: waiters then go to Redis directly, as other processes would, so an abandoned hold
 * cannot block this JVM longer than it blocks the rest.
 */
final class LocalGates {

    /** How a thread got past the gate. */
    enum Pass {
        /** It holds the permit until its hold ends: acquire in Redis. */
        PERMIT,
        /** It holds the permit and a grant handed on by the last holder: no round trip needed. */
        HANDED_ON,
        /** The permit's holder lost its lease: go to Redis without the permit. */
        BYPASS,
        /** The wait time ran out here. */
        TIMEOUT
    }

    /**
     * A grant in Redis passed from a releasing local holder to the next local waiter: the same grant
     * (owner id and grant id in Redis), the next of its reserved fencing tokens.
     *
     * @param kind the kind of lock
     * @param keys its keys
     * @param redisOwner the owner id of the grant in Redis
     * @param grantId the grant id in Redis
     * @param token the fencing token of the new hold
     * @param tokenLimit the last token the grant reserved
     * @param lease the lease (a watchdog lease: the next holder's watchdog renews it)
     * @param validUntilNanos until when the grant is valid as far as this client knows
     * @param redisGrantNanos when the grant in Redis was asked for
     * @param refill the further token blocks of the grant, when it asked for any
     * @param shortGrant whether the grant's TTL in Redis was cut short of its lease when it was made (a
     *     grant carried in a wake-up message), and it was not renewed since as far as this client knows
     */
    record Baton(
            LockKind kind,
            LockKeys keys,
            String redisOwner,
            String grantId,
            long token,
            long tokenLimit,
            Lease lease,
            long validUntilNanos,
            long redisGrantNanos,
            @Nullable TokenRefill refill,
            boolean shortGrant) {}

    /** What {@link Gate#enter} gave: how it passed, and the handed-on grant for {@link Pass#HANDED_ON}. */
    record Entry(Pass pass, @Nullable Baton baton) {
        static final Entry PERMIT = new Entry(Pass.PERMIT, null);
        static final Entry BYPASS = new Entry(Pass.BYPASS, null);
        static final Entry TIMEOUT = new Entry(Pass.TIMEOUT, null);
    }

    /**
     * The gates in use, per lock type and lock key (the key string of the hold's {@link LockKeys}, so a
     * gate costs no key of its own: a client can hold 100,000 locks).
     */
    private final EnumMap<LockType, ConcurrentHashMap<String, Gate>> gates = new EnumMap<>(LockType.class);

    LocalGates() {
        for (LockType type : LockType.values()) {
            gates.put(type, new ConcurrentHashMap<>());
        }
    }

    /** Set when the client closes: waiters leave the gate and find the client closed. */
    volatile boolean closed;

    /** The gate of {@code lockKey} for locks of {@code type}, counted as used until {@link #leave}. */
    Gate join(LockType type, String lockKey) {
        return gates.get(type).compute(lockKey, (key, existing) -> {
            Gate gate = existing != null ? existing : new Gate(this);
            gate.users++;
            return gate;
        });
    }

    /** Stops using {@code gate}; the last user removes it. */
    void leave(LockType type, String lockKey, Gate gate) {
        gates.get(type)
                .computeIfPresent(lockKey, (key, existing) -> existing == gate && --gate.users == 0 ? null : existing);
    }

    int size() {
        return gates.values().stream().mapToInt(ConcurrentHashMap::size).sum();
    }

    /** Lets every waiter out (each sees the client closed next); later waiters do not wait. */
    void close() {
        closed = true;
        gates.values().forEach(byKey -> byKey.values().forEach(Gate::releaseAll));
    }

    /** Threads waiting at any gate (for tests and diagnostics). */
    int waiting() {
        return gates.values().stream()
                .flatMap(byKey -> byKey.values().stream())
                .mapToInt(Gate::queued)
                .sum();
    }
}
