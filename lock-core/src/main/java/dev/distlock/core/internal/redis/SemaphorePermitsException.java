package dev.distlock.core.internal.redis;

import org.jspecify.annotations.Nullable;

/**
 * A semaphore was asked for with a number of permits other than the one it has in Redis: two clients
 * must not count the same semaphore differently. Callers see an {@link IllegalStateException}.
 */
public final class SemaphorePermitsException extends LockRefusedException {

    private static final long serialVersionUID = 1L;

    public SemaphorePermitsException(String key, int asked, long has) {
        super(
                "Semaphore " + key + " has " + has + " permits in Redis, but this client declared " + asked
                        + ": every client must declare the same number. Declare " + has + ", or change the number"
                        + " once no permit is held and its fencing counter has expired (or force-unlock it and delete "
                        + key + ":permits)",
                null);
    }

    private SemaphorePermitsException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    @Override
    public LockRefusedException again() {
        return new SemaphorePermitsException(getMessage(), this);
    }
}
