package dev.distlock.core.internal.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One {@link RedisCalls#callAsync} and its state across attempts: each attempt is bounded by a timer of
 * its own and by the call's deadline; a transient failure is sent again after a back-off that doubles.
 */
final class AsyncCall<T> {

    private final RedisCalls calls;
    private final Supplier<CompletableFuture<T>> call;
    private final long deadline;
    private final String doing;
    private final LockKeys keys;
    private final CompletableFuture<T> result;
    private final AtomicReference<CompletableFuture<T>> inFlight;
    private final @Nullable Consumer<CompletableFuture<T>> sentLate;

    AsyncCall(
            RedisCalls calls,
            Supplier<CompletableFuture<T>> call,
            long deadline,
            String doing,
            LockKeys keys,
            CompletableFuture<T> result,
            AtomicReference<CompletableFuture<T>> inFlight,
            @Nullable Consumer<CompletableFuture<T>> sentLate) {
        this.calls = calls;
        this.call = call;
        this.deadline = deadline;
        this.doing = doing;
        this.keys = keys;
        this.result = result;
        this.inFlight = inFlight;
        this.sentLate = sentLate;
    }

    void attempt(long backOff, @Nullable Throwable last) {
        if (result.isDone()) {
            return;
        }
        if (calls.isClosed()) {
            result.completeExceptionally(calls.closedException());
            return;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            result.completeExceptionally(calls.unavailable(doing, keys, last));
            return;
        }
        CompletableFuture<T> future = RedisCalls.send(call);
        inFlight.set(future);
        if (result.isDone()) {
            // Completed after the check above: its caller may have undone the call before this command went
            // out (the cancel saw the previous attempt in flight, not this one), so it lands after the undo.
            if (sentLate == null) {
                future.cancel(true);
            } else {
                sentLate.accept(future);
            }
            return;
        }
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> timer;
        try {
            timer = calls.timers()
                    .schedule(
                            () -> {
                                timedOut.set(true);
                                future.cancel(true);
                            },
                            left,
                            TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) { // the client is closing
            future.cancel(true);
            result.completeExceptionally(calls.closedException());
            return;
        }
        future.whenComplete((value, error) -> {
            timer.cancel(false);
            if (error == null) {
                result.complete(value);
                return;
            }
            if (result.isDone()) {
                return; // cancelled by its caller (which cancels the command too): nothing to retry
            }
            Throwable cause = RedisFailures.unwrap(error);
            RuntimeException fatal =
                    timedOut.get() ? calls.unavailable(doing, keys, last) : calls.fatal(cause, doing, keys);
            if (fatal != null) {
                result.completeExceptionally(fatal);
            } else {
                long pause = Math.min(backOff, deadline - System.nanoTime());
                if (pause <= 0) {
                    result.completeExceptionally(calls.unavailable(doing, keys, cause));
                    return;
                }
                try {
                    calls.timers()
                            .schedule(
                                    () -> attempt(Math.min(backOff * 2, RedisCalls.MAX_BACK_OFF_NANOS), cause),
                                    pause,
                                    TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException e) {
                    result.completeExceptionally(calls.closedException());
                }
            }
        });
    }
}
