package dev.distlock.core.internal.redis;

import org.jspecify.annotations.Nullable;

/**
 * Redis refused an acquire that could never succeed as asked (a read holder asking for the write lock, a
 * semaphore declared with another number of permits): a refusal, not a Redis failure, so it is never sent
 * again and reaches the caller as an {@link IllegalStateException}.
 */
public abstract class LockRefusedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    protected LockRefusedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /** The same refusal thrown again in the caller's thread, with this one as its cause. */
    public abstract LockRefusedException again();
}
