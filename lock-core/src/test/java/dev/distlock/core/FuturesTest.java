package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.internal.support.Futures;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A stage handed to a caller who may cancel it: a value produced in the same instant is never lost. */
class FuturesTest {

    @Test
    void aCancelThatLandsWhileTheValueIsOnItsWayLeavesTheValueToTheOrphanHandler() {
        CompletableFuture<String> source = new CompletableFuture<>();
        List<String> orphans = new CopyOnWriteArrayList<>();
        AtomicReference<CompletableFuture<String>> derived = new AtomicReference<>();
        // The caller cancels at the worst moment: after the value came, before the caller's stage has it.
        derived.set(Futures.derive(
                source,
                value -> {
                    derived.get().cancel(true);
                    return value.toUpperCase();
                },
                orphans::add));

        source.complete("hold");

        assertThat(derived.get()).isCancelled();
        assertThat(orphans).as("given back, not lost").containsExactly("hold");
    }

    @Test
    void aValueThatReachedTheCallerIsNotGivenBack() {
        CompletableFuture<String> source = new CompletableFuture<>();
        List<String> orphans = new CopyOnWriteArrayList<>();
        CompletableFuture<String> derived = Futures.derive(source, String::toUpperCase, orphans::add);

        source.complete("hold");

        assertThat(derived.cancel(true)).isFalse();
        assertThat(derived.join()).isEqualTo("HOLD");
        assertThat(orphans).isEmpty();
    }

    @Test
    void cancellingTheCallersStageCancelsTheSourceAndALateValueIsGivenBack() {
        CompletableFuture<String> source = new CompletableFuture<>();
        List<String> orphans = new CopyOnWriteArrayList<>();
        CompletableFuture<String> derived = Futures.derive(source, String::toUpperCase, orphans::add);

        assertThat(derived.cancel(true)).isTrue();

        assertThat(source).isCancelled();
        assertThatThrownBy(derived::join).isInstanceOf(CancellationException.class);
        assertThat(orphans).isEmpty(); // nothing was produced
    }

    @Test
    void aCallerTimingItsStageOutStopsTheSourceToo() {
        CompletableFuture<String> source = new CompletableFuture<>();
        List<String> orphans = new CopyOnWriteArrayList<>();
        CompletableFuture<String> derived = Futures.derive(source, String::toUpperCase, orphans::add);

        derived.completeExceptionally(new java.util.concurrent.TimeoutException()); // what orTimeout does

        assertThat(source).isCancelled();
        assertThat(orphans).isEmpty();
    }

    @Test
    void aFailureReachesTheCallerAsTheCauseOfACompletionException() {
        CompletableFuture<String> source = new CompletableFuture<>();
        CompletableFuture<String> derived = Futures.derive(source, String::toUpperCase, value -> {});
        LockException failure = new LockException("Redis did not answer", null);

        source.completeExceptionally(failure);

        assertThatThrownBy(derived::join)
                .isInstanceOf(CompletionException.class)
                .hasCause(failure);
    }
}
