package dev.distlock.testsupport;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A call running on a fresh thread, so it is a different lock owner than the test thread; the
 * thread is exposed so tests can interrupt it.
 *
 * <pre>{@code
 * assertThat(OtherThread.call(() -> lock.tryLock(Waits.RUNS_OUT))).isFalse();
 * }</pre>
 */
public final class OtherThread<T> {

    /** The thread the call runs on. */
    public final Thread thread;

    /** The call's result, or what it threw. */
    public final CompletableFuture<T> result = new CompletableFuture<>();

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
    public static <T> OtherThread<T> start(Callable<T> action) {
        OtherThread<T> t = new OtherThread<>(action);
        t.thread.start();
        return t;
    }

    /** The call's result; its exception is rethrown as the cause of an {@link ExecutionException}. */
    public static <T> T call(Callable<T> action) throws Exception {
        return start(action).get();
    }

    /** What the call threw, or {@code null} when it returned normally. */
    public static @Nullable Throwable failure(Callable<?> action) throws Exception {
        return start(action).failure();
    }

    /** Waits (bounded) for the result. */
    public T get() throws Exception {
        return result.get(30, TimeUnit.SECONDS);
    }

    /** Waits (bounded) for the call to end and returns what it threw, or {@code null}. */
    public @Nullable Throwable failure() throws Exception {
        try {
            get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
