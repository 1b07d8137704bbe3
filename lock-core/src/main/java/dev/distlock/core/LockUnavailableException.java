package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * Redis did not answer a lock operation within its bound (the caller's wait time, or
 * {@link LockClientOptions#operationTimeout()} where there is none): it is down, paused,
 * unreachable or too slow. Unlike a busy lock ({@code tryLock} returning {@code false}, or
 * {@link LockAcquisitionException} from the starter) it says nothing about who holds the lock.
 * Any grant that Redis may have made for the abandoned request is given back in the background,
 * and at worst expires with its lease.
 */
public class LockUnavailableException extends LockException {

    public LockUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
