package dev.distlock.core.internal.redis;

import org.jspecify.annotations.Nullable;

/**
 * A read holder asked for the write lock of the same name: it would wait for its own read hold for
 * ever, so it is refused at once. Callers see an {@link IllegalStateException}.
 */
public final class LockUpgradeException extends LockRefusedException {

    private static final long serialVersionUID = 1L;

    public LockUpgradeException(String lockName) {
        super(
                "Lock '" + lockName + "': the current owner holds the read lock and cannot upgrade to the write lock"
                        + " (it would wait for itself); release every read hold first, or take the write lock first and"
                        + " downgrade",
                null);
    }

    public LockUpgradeException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    @Override
    public LockRefusedException again() {
        return new LockUpgradeException(getMessage(), this);
    }
}
