package dev.distlock.spring.execution;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockType;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import java.time.Duration;
import java.util.List;

/**
 * Where the starter's locks come from: Redis (the default) or, with {@code distlock.mode=local},
 * this JVM. Infrastructure of the starter, not API.
 */
public interface LockSource {

    /** A lock of {@code type} on {@code key}, reported under {@code label}; a RedLock when {@code redlock}. */
    RedisLock lock(LockType type, boolean redlock, String key, String label);

    /**
     * One permit per call of a semaphore of {@code permits} on {@code key} ({@code type} SEMAPHORE or
     * FAIR_SEMAPHORE), reported under {@code label}.
     */
    RedisLock permits(LockType type, String key, int permits, String label);

    /** This source, its locks' holds capped at {@code maxHold} instead of distlock.max-hold. */
    LockSource withMaxHold(Duration maxHold);

    /** The keys locked together, all or nothing. */
    RedisMultiLock multiLock(List<String> keys, String label);

    /**
     * Deletes the lock on {@code key} whoever holds it (operators only: its holder runs on unprotected).
     *
     * @param type the kind of lock on the key: REENTRANT, FAIR, READ or WRITE (both sides of a read/write lock), or REDLOCK
     * @return whether a lock was deleted
     */
    boolean forceUnlock(String key, String type);

    /**
     * Every hold of this source's lock clients now, including those taken directly through them (not
     * through the starter); empty where no client can be used directly (local mode).
     */
    List<HeldLock> heldLocks();

    /** How many locks this instance holds now. */
    int activeHolds();

    /**
     * Checks that locks can be taken now (for the health indicator).
     *
     * @throws RuntimeException saying why not
     */
    void check();
}
