package dev.distlock.core;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * A lock was busy for the whole wait time. Redis being unreachable is reported apart, as
 * {@link LockUnavailableException}; both are {@link LockException}s.
 */
public class LockAcquisitionException extends LockException {

    private final String lockName;
    private final Duration waitTime;

    public LockAcquisitionException(String lockName, Duration waitTime, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.waitTime = waitTime;
    }

    /** The lock that could not be acquired. */
    public String getLockName() {
        return lockName;
    }

    /** How long the caller was prepared to wait. */
    public Duration getWaitTime() {
        return waitTime;
    }
}
