package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/** Redis failed while working on a lock; the message names the lock and the operation. */
public class LockException extends RuntimeException {

    public LockException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
