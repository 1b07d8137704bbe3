package dev.distlock.benchmark;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One library's client, opened as that library's documentation sets it up. Every library hands out
 * a {@link Lock}; the other capabilities exist only where the library has them ({@link Library#has}).
 */
interface LockProvider extends AutoCloseable {

    /** What a scenario may need besides a plain {@link Lock}. */
    enum Feature {
        /** {@link #fairLock(String)}: grants in arrival order. */
        FAIR,
        /** {@link #asyncCycle(String, long)} and {@link #hold(String)}: locking without a blocked thread. */
        ASYNC,
        /** {@link #reactiveCycle(String, long)}: Project Reactor publishers. */
        REACTIVE
    }

    /** The lock for {@code key}; called once per worker thread, outside the timed loop. */
    Lock lock(String key);

    /** The fair lock for {@code key}; only when {@link Feature#FAIR} is supported. */
    default Lock fairLock(String key) {
        throw unsupported(Feature.FAIR);
    }

    /**
     * Acquire, run {@code work} holding the lock, release, all through the library's
     * {@code CompletionStage} API, owned by {@code owner} (one per concurrent caller) rather than by a
     * thread. The stage completes once the release is confirmed.
     */
    default AsyncCycle asyncCycle(String key, long owner) {
        throw unsupported(Feature.ASYNC);
    }

    /** As {@link #asyncCycle}, through the library's Reactor API ({@code Mono}). */
    default AsyncCycle reactiveCycle(String key, long owner) {
        throw unsupported(Feature.REACTIVE);
    }

    /**
     * Takes the free lock {@code key} with the watchdog lease and keeps it, owned by no thread.
     * Completes once held, with the way to release it.
     */
    default CompletionStage<Hold> hold(String key) {
        throw unsupported(Feature.ASYNC);
    }

    /** A lock taken by {@link #hold(String)}. */
    @FunctionalInterface
    interface Hold {
        /** Releases it; the stage fails when the hold had been lost. */
        CompletionStage<?> release();
    }

    /** The Redis key that exists while {@code key} is held, to check that held locks survived. */
    default String redisKey(String key) {
        return key;
    }

    /** Holds this client reported lost ({@code LockListener.onLeaseLost}), or -1 when it cannot tell. */
    default long leaseLossesReported() {
        return -1;
    }

    @Override
    void close();

    private UnsupportedOperationException unsupported(Feature feature) {
        return new UnsupportedOperationException(getClass().getSimpleName() + " has no " + feature + " locks");
    }

    /** One lock / work / unlock round without blocking a thread. */
    @FunctionalInterface
    interface AsyncCycle {
        CompletionStage<?> run(Runnable work);

        /** A cycle from a library's async acquire and the release of what it handed out. */
        static <H, R> AsyncCycle of(
                Supplier<? extends CompletionStage<H>> acquire,
                Function<? super H, ? extends CompletionStage<R>> release) {
            return work -> acquire.get().thenCompose(held -> {
                work.run();
                return release.apply(held);
            });
        }
    }
}
