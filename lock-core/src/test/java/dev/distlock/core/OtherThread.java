package dev.distlock.core;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A call running on a fresh thread, so it is a different lock owner than the test thread; the
 * thread is exposed so tests can interrupt it.
 */
final class OtherThread<T> {

    final Thread thread;
    final CompletableFuture<T> result = new CompletableFuture<>();

    private OtherThread(Callable<T> action) {
        thread = new Thread(
                () -> {
                    try {
                        result.complete(action.call());
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                },
                "other-thread");
        thread.setDaemon(true);
    }

    /** Starts {@code action} on a new daemon thread. */
    static <T> OtherThread<T> start(Callable<T> action) {
        OtherThread<T> t = new OtherThread<>(action);
        t.thread.start();
        return t;
    }

    /**
     * Starts a thread that waits up to {@code wait} for the lock {@code lock} gives (made on that thread),
     * releases it at once when it got it, and returns whether it did.
     */
    static OtherThread<Boolean> takesAndReleases(Supplier<RedisLock> lock, Duration wait) {
        return start(() -> {
            RedisLock l = lock.get();
            boolean got = l.tryLock(wait);
            if (got) {
                l.unlock();
            }
            return got;
        });
    }

    /** The call's result; its exception is rethrown as the cause of an {@link ExecutionException}. */
    static <T> T call(Callable<T> action) throws Exception {
        return start(action).get();
    }

    /** What the call threw, or {@code null} when it returned normally. */
    static Throwable failure(Callable<?> action) throws Exception {
        return start(action).failure();
    }

    /** Waits (bounded) for the result. */
    T get() throws Exception {
        return result.get(30, TimeUnit.SECONDS);
    }

    /** Waits (bounded) for the call to end and returns what it threw, or {@code null}. */
    Throwable failure() throws Exception {
        try {
            get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
