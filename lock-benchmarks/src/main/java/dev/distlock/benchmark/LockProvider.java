package dev.distlock.benchmark;

import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/** One library's client, opened with that library's defaults. All three hand out a {@link Lock}. */
interface LockProvider extends AutoCloseable {

    /** The lock for {@code key}; called once per worker thread, outside the timed loop. */
    Lock lock(String key);

    @Override
    void close();

    /** A provider from a lock lookup and the library's shutdown. */
    static LockProvider of(Function<String, ? extends Lock> locks, Runnable shutdown) {
        return new LockProvider() {
            @Override
            public Lock lock(String key) {
                return locks.apply(key);
            }

            @Override
            public void close() {
                shutdown.run();
            }
        };
    }
}
