package dev.distlock.core.internal.support;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;

/** Helpers for the futures of async acquisitions. */
public final class Futures {

    private Futures() {}

    /**
     * {@code source} mapped by {@code map}, for handing a caller a stage it may cancel. Cancelling the
     * derived stage cancels {@code source}, and so does the caller failing it in any other way (such as
     * {@code orTimeout}, which bounds an endless wait: the wait must stop with it, not go on in the
     * background); a value that {@code source} still produces after that (a hold granted in the same
     * instant) goes to {@code orphan}, which must give it back, since nobody else will.
     * Whether the value reached the caller is decided by one atomic step (completing the derived stage),
     * so a cancel at any moment either prevents the value or leaves it with the caller, never neither.
     */
    public static <T, R> CompletableFuture<R> derive(
            CompletableFuture<T> source, Function<T, R> map, Consumer<T> orphan) {
        CompletableFuture<R> derived = new CompletableFuture<>();
        derived.whenComplete((value, error) -> {
            if (error != null) {
                source.cancel(true); // nothing to cancel when the failure came from source itself
            }
        });
        source.whenComplete((value, error) -> {
            if (error != null) {
                derived.completeExceptionally(
                        error instanceof CompletionException ? error : new CompletionException(error));
                return;
            }
            R mapped;
            try {
                mapped = map.apply(value);
            } catch (RuntimeException e) {
                derived.completeExceptionally(new CompletionException(e));
                orphan.accept(value);
                return;
            }
            if (!derived.complete(mapped)) {
                orphan.accept(value);
            }
        });
        return derived;
    }
}
