package dev.distlock.benchmark;

import java.util.concurrent.locks.Lock;

/** One library's client, opened with that library's defaults. All three hand out a {@link Lock}. */
interface LockProvider extends AutoCloseable {

    /** The lock for {@code key}; called once per worker thread, outside the timed loop. */
    Lock lock(String key);

    @Override
    void close();
}
