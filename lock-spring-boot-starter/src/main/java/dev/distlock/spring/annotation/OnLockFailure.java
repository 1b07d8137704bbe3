package dev.distlock.spring.annotation;

/** What a {@link DistributedLock} method does when its lock stays busy for the whole wait time. */
public enum OnLockFailure {

    /** Throw {@link dev.distlock.core.LockAcquisitionException} to the caller (the default). */
    THROW,

    /**
     * Skip the method: return {@code null}, or {@code Optional.empty()} for an {@code Optional}
     * result. Not allowed on methods returning a primitive (rejected at start-up). Redis errors are
     * still thrown: only a busy lock is skipped.
     */
    SKIP
}
