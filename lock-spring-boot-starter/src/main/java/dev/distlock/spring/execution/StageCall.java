package dev.distlock.spring.execution;

import dev.distlock.core.LockAcquisitionException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;

/**
 * One call of a method returning a {@link CompletionStage}, inside its lock: the caller gets
 * {@link #result} at once; the method is invoked once the lock is held and the lock is released once its
 * stage completes, or when the caller cancels {@link #result}.
 */
final class StageCall<T> {

    private final LockRequest request;
    private final LockedCall<? extends CompletionStage<T>> work;
    private final boolean cancelOnLeaseLost;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private volatile AsyncHold hold;
    private volatile CompletableFuture<T> running;
    private volatile boolean cancelledForLoss;

    StageCall(LockRequest request, LockedCall<? extends CompletionStage<T>> work, boolean cancelOnLeaseLost) {
        this.request = request;
        this.work = work;
        this.cancelOnLeaseLost = cancelOnLeaseLost;
    }

    CompletableFuture<T> start(
            CompletableFuture<Optional<AsyncHold>> acquiring,
            Supplier<T> whenBusy,
            Supplier<LockAcquisitionException> busy) {
        result.whenComplete((value, error) -> {
            if (result.isCancelled()) {
                acquiring.cancel(true);
                cancelled();
            }
        });
        // Off the Redis client's I/O thread that completed the acquisition: the method may block before it
        // returns its stage (even call Redis synchronously), which on that thread would stall every Redis reply.
        acquiring.whenCompleteAsync(
                (acquired, error) -> {
                    if (error != null) {
                        result.completeExceptionally(unwrap(error));
                    } else if (acquired.isEmpty()) {
                        if (whenBusy != null) {
                            result.complete(whenBusy.get());
                        } else {
                            result.completeExceptionally(busy.get());
                        }
                    } else {
                        held(acquired.get());
                    }
                },
                ForkJoinPool.commonPool());
        return result;
    }

    private void held(AsyncHold acquired) {
        hold = acquired;
        if (result.isDone()) { // cancelled while the grant arrived
            acquired.release(new CancellationException("cancelled by the caller"));
            return;
        }
        CompletableFuture<T> stage;
        try {
            CompletionStage<T> returned = acquired.invoke(work);
            if (returned == null) {
                throw new IllegalStateException("@DistributedLock method " + request.caller()
                        + " returned null instead of a CompletionStage; return a completed future instead");
            }
            stage = future(returned);
        } catch (Throwable t) {
            finish(null, t);
            return;
        }
        running = stage;
        if (cancelOnLeaseLost) {
            acquired.leaseLost().thenAccept(reason -> {
                cancelledForLoss = true;
                stage.cancel(true);
            });
        }
        if (result.isCancelled()) {
            stage.cancel(true);
        }
        stage.whenComplete(this::finish);
    }

    /** The method's stage ended: release, then give the caller its outcome (or the lost lease). */
    private void finish(T value, Throwable error) {
        Throwable failure = error == null ? null : unwrap(error);
        boolean lost = cancelledForLoss && failure instanceof CancellationException;
        hold.release(lost ? null : failure).whenComplete((ok, releaseError) -> {
            if (releaseError != null) {
                result.completeExceptionally(unwrap(releaseError));
            } else if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(value);
            }
        });
    }

    /** The caller cancelled: stop the method's stage, and release (once, whichever comes first). */
    private void cancelled() {
        CompletableFuture<T> stage = running;
        if (stage != null) {
            stage.cancel(true);
        }
        AsyncHold acquired = hold;
        if (acquired != null) {
            acquired.release(new CancellationException("cancelled by the caller"));
        }
    }

    private static <T> CompletableFuture<T> future(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture();
        } catch (UnsupportedOperationException e) { // a stage that will not convert: follow it instead
            CompletableFuture<T> copy = new CompletableFuture<>();
            stage.whenComplete((value, error) -> {
                if (error != null) {
                    copy.completeExceptionally(error);
                } else {
                    copy.complete(value);
                }
            });
            return copy;
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
