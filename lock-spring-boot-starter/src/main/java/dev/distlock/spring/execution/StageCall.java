package dev.distlock.spring.execution;

import dev.distlock.core.LockAcquisitionException;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * One call of a method returning a {@link CompletionStage}, inside its lock: the caller gets
 * {@link #result} at once; the method is invoked once the lock is held and the lock is released once its
 * stage completes. A caller that cancels {@link #result} before the method was invoked gives the lock up
 * (the method never runs); once it was invoked, the cancel ends only the caller's wait, and the lock stays
 * held until the method's stage completes: cancelling a CompletableFuture does not stop work already
 * running, so releasing at the cancel would let another instance in beside that work.
 */
final class StageCall<T> {

    private final LockRequest request;
    private final LockedCall<? extends CompletionStage<T>> work;
    private final boolean cancelOnLeaseLost;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    private volatile AsyncHold hold;
    /** The lost lease's reason once the method's stage was cancelled for it (on-lease-lost=interrupt). */
    private volatile String cancelledForLoss;

    StageCall(LockRequest request, LockedCall<? extends CompletionStage<T>> work, boolean cancelOnLeaseLost) {
        this.request = request;
        this.work = work;
        this.cancelOnLeaseLost = cancelOnLeaseLost;
    }

    /** @param invoking where the method is invoked once the lock is held, with the caller's context */
    CompletableFuture<T> start(
            CompletableFuture<Optional<AsyncHold>> acquiring,
            Executor invoking,
            Supplier<T> whenBusy,
            Supplier<LockAcquisitionException> busy) {
        result.whenComplete((value, error) -> {
            if (result.isCancelled()) {
                acquiring.cancel(
                        true); // while it waits: gives the wait up in Redis; a grant in that instant is released
            }
        });
        // Off the Redis client's I/O thread that completed the acquisition (see Invoker)
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
                invoking);
        return result;
    }

    private void held(AsyncHold acquired) {
        hold = acquired;
        if (result.isDone()) { // cancelled while the grant arrived: the method never runs
            acquired.release(new CancellationException("cancelled by the caller"));
            return;
        }
        // From here on the method runs under the lock to the end of its stage, whatever the caller does.
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
        if (cancelOnLeaseLost) {
            acquired.leaseLost().thenAccept(reason -> {
                cancelledForLoss = reason;
                stage.cancel(true);
            });
        }
        stage.whenComplete(this::finish);
    }

    /**
     * The method's stage ended: release, then give the caller its outcome (or the lost lease); a caller that
     * cancelled has its outcome already.
     */
    private void finish(T value, Throwable error) {
        Throwable failure = error == null ? null : unwrap(error);
        String lossReason = cancelledForLoss;
        boolean lost = lossReason != null && failure instanceof CancellationException;
        if (lost) {
            // no result to give: the caller learns of the loss whatever throw-on-lease-lost says
            hold.cutShort(lossReason);
        }
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
