package dev.distlock.core.internal.engine;

import dev.distlock.core.LockType;
import dev.distlock.core.internal.redis.LockKeys;
import java.util.Collection;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The holds one client's owners have, and the local gates they queue at: one hold per owner, kind
 * and lock (a write holder may also hold the read lock of the same name), one gate per kind and lock.
 */
final class HoldTable {

    private final ConcurrentHashMap<HoldId, Hold> holds = new ConcurrentHashMap<>();
    private final LocalGates gates = new LocalGates();

    /** The hold {@code owner} has on {@code keys} in this client, or {@code null}. */
    @Nullable
    Hold get(LockKind kind, LockKeys keys, String owner) {
        return holds.get(holdId(kind, keys, owner));
    }

    /**
     * Records a new hold. A hold the owner still had is superseded (Redis granted afresh, so it had
     * expired there) and the new hold takes over its place in the local gate; returns the superseded
     * hold, or {@code null}.
     */
    @Nullable
    Hold put(Hold hold) {
        Hold existing = holds.put(holdId(hold.kind, hold.keys, hold.owner), hold);
        if (existing == null || existing.released) {
            return null;
        }
        existing.released = true;
        hold.ownsPermit = existing.ownsPermit;
        hold.gate = existing.gate;
        existing.gate = null;
        if (hold.gate != null && hold.ownsPermit) {
            hold.gate.holder = hold;
        }
        return existing;
    }

    /** Forgets a hold that ended (its last release, or its loss found at release). */
    void remove(Hold hold) {
        hold.released = true;
        holds.remove(holdId(hold.kind, hold.keys, hold.owner), hold);
    }

    Collection<Hold> all() {
        return holds.values();
    }

    /** The local gate of one kind of lock on one name, counted as used until {@link #leave}. */
    Gate join(LockKind kind, LockKeys keys) {
        return gates.join(kind.type, keys.lock());
    }

    void leave(LockKind kind, LockKeys keys, Gate gate) {
        gates.leave(kind.type, keys.lock(), gate);
    }

    /** Gives {@code gate} to {@code hold} until its last release. */
    void enterGate(Hold hold, Gate gate, boolean permit) {
        hold.ownsPermit = permit;
        hold.gate = gate;
        if (permit) {
            gate.holder = hold;
        }
    }

    /** After a hold's last release in Redis: the next local waiter may try. Runs once per hold. */
    void exitGate(Hold hold) {
        Gate gate = hold.gate;
        if (gate != null) {
            hold.gate = null;
            if (hold.ownsPermit) {
                gate.exit();
            }
            leave(hold.kind, hold.keys, gate);
        }
    }

    /** Lock names with a local gate in use (for tests). */
    int gates() {
        return gates.size();
    }

    /** Threads queued in front of Redis at a local gate (for tests). */
    int waiting() {
        return gates.waiting();
    }

    /** Lets every waiter at a gate out; later waiters do not wait. */
    void close() {
        gates.close();
    }

    /** A hold's place in the table: its lock key (the string its keys already hold), kind and owner. */
    private record HoldId(String lock, LockType type, String owner) {}

    private static HoldId holdId(LockKind kind, LockKeys keys, String owner) {
        return new HoldId(keys.lock(), kind.type, owner);
    }
}
