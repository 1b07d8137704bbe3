package dev.distlock.spring.execution;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;

/** What a locked call's failures say: which caller waited for which lock, and what else went wrong. */
final class LockErrors {

    private LockErrors() {}

    static String keyOf(RedisLock lock, LockRequest request) {
        return lock instanceof RedisMultiLock multi
                ? String.join(", ", multi.keys())
                : request.keys().get(0);
    }

    static LockAcquisitionException busy(LockRequest request, String key) {
        return new LockAcquisitionException(
                key,
                request.waitTime(),
                "Lock '" + key + "' for " + request.caller() + " is held elsewhere and was not released within "
                        + request.waitTime().toMillis() + " ms",
                null);
    }

    static String describe(LockRequest request) {
        return request.caller().startsWith("LockTemplate")
                ? request.caller()
                : "@DistributedLock on " + request.caller();
    }

    /** The core's acquisition failure, saying which caller waited for which lock. */
    static RuntimeException inContext(RedisLock lock, LockRequest request, Throwable e) {
        if (e instanceof LockUnavailableException) {
            // Not "busy": nobody knows who holds the lock. A distinct type, so callers can answer 503 rather than 409.
            return new LockUnavailableException(
                    "Redis did not answer while " + request.caller() + " waited up to "
                            + request.waitTime().toMillis() + " ms for lock '" + lock.getKey() + "': " + e.getMessage(),
                    e);
        }
        if (e instanceof LockException) {
            return new LockException(
                    "Redis failed while acquiring lock '" + lock.getKey() + "' for " + request.caller() + ": "
                            + e.getMessage(),
                    e);
        }
        return e instanceof RuntimeException r
                ? r
                : new IllegalStateException(
                        "Acquiring lock '" + lock.getKey() + "' for " + request.caller() + " failed: " + e, e);
    }

    /** Runs {@code giveBack} after {@code failure}, which keeps a failure of the give-back as suppressed. */
    static void giveBackAfter(Throwable failure, Runnable giveBack) {
        try {
            giveBack.run();
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
