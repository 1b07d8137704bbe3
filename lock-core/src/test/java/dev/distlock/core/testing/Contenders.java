package dev.distlock.core.testing;

import dev.distlock.core.RedisLock;
import dev.distlock.testsupport.OtherThread;
import java.time.Duration;
import java.util.function.Supplier;

/** Owners that contend for a lock from a thread of their own. */
public final class Contenders {

    private Contenders() {}

    /**
     * Starts a thread that waits up to {@code wait} for the lock {@code lock} gives (made on that thread),
     * releases it at once when it got it, and returns whether it did.
     */
    public static OtherThread<Boolean> takesAndReleases(Supplier<RedisLock> lock, Duration wait) {
        return OtherThread.start(() -> {
            RedisLock l = lock.get();
            boolean got = l.tryLock(wait);
            if (got) {
                l.unlock();
            }
            return got;
        });
    }

    /**
     * Starts a thread that waits up to {@code wait} for the lock {@code lock} gives (made on that thread),
     * releases it at once when it got it, and returns when it got it ({@link System#nanoTime}), -1 if never.
     */
    public static OtherThread<Long> takesAtAndReleases(Supplier<RedisLock> lock, Duration wait) {
        return OtherThread.start(() -> {
            RedisLock l = lock.get();
            if (!l.tryLock(wait)) {
                return -1L;
            }
            long at = System.nanoTime();
            l.unlock();
            return at;
        });
    }
}
