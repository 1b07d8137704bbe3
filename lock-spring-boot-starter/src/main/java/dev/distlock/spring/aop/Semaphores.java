package dev.distlock.spring.aop;

import dev.distlock.core.LockType;
import dev.distlock.spring.DistributedLockConfigurationException;
import dev.distlock.spring.annotation.DistributedLock;
import java.time.Duration;

/** What {@code @DistributedLock(permits = n)} takes: a semaphore's permit, checked against the other attributes. */
final class Semaphores {

    private Semaphores() {}

    /**
     * The kind the annotation asks for: SEMAPHORE or FAIR_SEMAPHORE when {@code permits} is set, else its
     * {@code type} (REDLOCK read as REENTRANT, as {@code redlock} says it).
     */
    static LockType type(
            DistributedLock annotation, String where, boolean several, boolean redlock, Duration holdAtLeast) {
        LockType type = annotation.type() == LockType.REDLOCK ? LockType.REENTRANT : annotation.type();
        int permits = annotation.permits();
        boolean semaphoreType = type == LockType.SEMAPHORE || type == LockType.FAIR_SEMAPHORE;
        if (permits == 0) {
            if (semaphoreType) {
                throw refused(where, "has type = " + type + " without permits", "Set permits = n (n >= 1)");
            }
            return type;
        }
        if (permits < 0) {
            throw refused(where, "has permits = " + permits, "Set permits to at least 1, or to 0 for a lock");
        }
        if (several || redlock || !holdAtLeast.isZero()) {
            throw refused(
                    where,
                    "combines permits with " + (several ? "keys" : redlock ? "RedLock" : "holdAtLeast")
                            + ", which a semaphore does not support",
                    "Use permits with a single key, without redlock and holdAtLeast");
        }
        return switch (type) {
            case REENTRANT, SEMAPHORE -> LockType.SEMAPHORE;
            case FAIR, FAIR_SEMAPHORE -> LockType.FAIR_SEMAPHORE;
            default ->
                throw refused(
                        where,
                        "combines permits with type = " + type,
                        "Use permits with the default type, or type = FAIR for a fair semaphore");
        };
    }

    private static DistributedLockConfigurationException refused(String where, String problem, String fix) {
        return new DistributedLockConfigurationException("@DistributedLock on " + where + " " + problem, fix);
    }
}
