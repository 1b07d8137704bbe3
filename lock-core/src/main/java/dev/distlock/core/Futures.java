package dev.distlock.core;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/** Helpers for the futures of async acquisitions. */
final class Futures {

    private Futures() {}

    /**
     * {@code source} mapped by {@code map}, for handing a caller a stage it may cancel. Cancelling the
     * derived stage cancels {@code source}; a value that {@code source} still produces after that (a hold
     * granted in the same instant) goes to {@code orphan}, which must give it back, since nobody else will.
     */
    static <T, R> CompletableFuture<R> derive(CompletableFuture<T> source, Function<T, R> map, Consumer<T> orphan) {
        CompletableFuture<R> derived = source.thenApply(map);
        derived.whenComplete((value, error) -> {
            if (derived.isCancelled()) {
                source.cancel(true);
            }
        });
        source.thenAccept(value -> {
            if (derived.isCancelled()) {
                orphan.accept(value);
            }
        });
        return derived;
    }
}
