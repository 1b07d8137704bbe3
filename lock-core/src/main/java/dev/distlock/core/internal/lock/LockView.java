package dev.distlock.core.internal.lock;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockType;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.support.Durations;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What a view of a lock client ({@code timedByCaller()}, {@code withMaxHold(...)}) gives the locks it hands
 * out, on the same engine and holds as the client: shared by the Redis and the RedLock client.
 *
 * @param timedByCaller whether the caller times the locks' acquisitions and releases itself
 * @param maxHold the cap on how long the watchdog renews one hold, or {@code null} for none
 */
public record LockView(boolean timedByCaller, @Nullable Duration maxHold) {

    /** The identity of a lock on {@code key} of {@code type}, called {@code name} (the key when null). */
    public LockInfo info(String key, @Nullable String name, LockType type) {
        return new LockInfo(key, name == null ? key : name, type, timedByCaller, maxHold);
    }

    /** This view, timed by its caller. */
    public LockView timed() {
        return new LockView(true, maxHold);
    }

    /** {@code maxHold} when it is a valid cap on holds: 10 ms (the shortest lease) to 365 days. */
    public static Duration requireMaxHold(Duration maxHold) {
        return Durations.requireBetween(maxHold, RedisLock.MIN_LEASE, Durations.MAX_LEASE, "maxHold");
    }

    /** This view, its holds capped at {@code cap}. */
    public LockView capped(Duration cap) {
        return new LockView(timedByCaller, cap);
    }
}
