package dev.distlock.core;

/** Redis failed while working on a lock; the message names the lock and the operation. */
public class LockException extends RuntimeException {

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
