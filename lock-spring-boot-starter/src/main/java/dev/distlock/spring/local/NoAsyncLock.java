package dev.distlock.spring.local;

import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisLock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The async (handle-owned) lock methods, refused the same way by every local lock: they need lock-core's
 * engine ({@code distributed-lock.mode=redis}).
 */
interface NoAsyncLock extends RedisLock {

    @Override
    default CompletionStage<LockHandle> lockAsync() {
        throw noAsync();
    }

    @Override
    default CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime) {
        throw noAsync();
    }

    @Override
    default CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime, @Nullable Duration lease) {
        throw noAsync();
    }

    private UnsupportedOperationException noAsync() {
        return new UnsupportedOperationException("Lock '" + getKey()
                + "': the async lock methods (lockAsync, tryLockAsync) are not available with"
                + " distributed-lock.mode=local yet; use them with distributed-lock.mode=redis");
    }
}
