package dev.distlock.core.internal.redlock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * Runs one call on several RedLock nodes at once, each bounded by a timeout, and collects every
 * node's reply or error. A slow or dead node costs the timeout, never more: RedLock must decide
 * well within the lease.
 */
final class NodeCalls {

    private NodeCalls() {}

    /** One node's answer: {@code value} when it replied, else {@code error} (including a timeout). */
    record Reply<T>(T value, Throwable error) {
        boolean answered() {
            return error == null;
        }
    }

    /** Calls {@code call} for nodes {@code 0..count-1} together; completes when all replied or timed out. */
    static <T> CompletableFuture<List<Reply<T>>> all(
            int count, IntFunction<CompletableFuture<T>> call, long timeoutNanos) {
        return until(count, call, timeoutNanos, r -> false, count + 1);
    }

    /**
     * Like {@link #all}, but completes as soon as {@code needed} replies satisfy {@code enough}: a
     * down node must not cost every call its timeout once a majority has decided. Nodes still
     * pending then appear as not answered; their commands still run, in order, on their connection,
     * until their own timeout cancels them. Cancelled, a command whose script Redis no longer had
     * (NOSCRIPT) is not sent again as EVAL, which would land after whatever the caller sent next to that
     * node (the release of a round that failed, leaving the node locked for nobody for the lease), and
     * Lettuce does not send it again after a reconnect.
     */
    static <T> CompletableFuture<List<Reply<T>>> until(
            int count,
            IntFunction<CompletableFuture<T>> call,
            long timeoutNanos,
            Predicate<Reply<T>> enough,
            int needed) {
        List<CompletableFuture<Reply<T>>> replies = new ArrayList<>(count);
        CompletableFuture<List<Reply<T>>> result = new CompletableFuture<>();
        AtomicInteger satisfied = new AtomicInteger();
        for (int i = 0; i < count; i++) {
            CompletableFuture<T> command;
            try {
                command = call.apply(i);
            } catch (RuntimeException e) { // a client that rejects the command at once (closed, disconnected)
                command = CompletableFuture.failedFuture(e);
            }
            CompletableFuture<T> sent = command;
            CompletableFuture<Reply<T>> reply = command.copy()
                    .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS)
                    .handle((value, error) -> {
                        Throwable cause = unwrap(error);
                        if (cause instanceof TimeoutException) {
                            sent.cancel(true);
                        }
                        return new Reply<>(error == null ? value : null, cause);
                    });
            replies.add(reply);
        }
        // Callbacks only once the list is complete: they may run at once, on this or a Netty thread.
        for (CompletableFuture<Reply<T>> reply : replies) {
            reply.thenAccept(r -> {
                if (enough.test(r) && satisfied.incrementAndGet() == needed) {
                    result.complete(snapshot(replies));
                }
            });
        }
        CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
                .thenRun(() -> result.complete(snapshot(replies)));
        return result;
    }

    private static <T> List<Reply<T>> snapshot(List<CompletableFuture<Reply<T>>> replies) {
        return replies.stream()
                .map(r -> r.isDone() ? r.join() : new Reply<T>(null, PENDING))
                .toList();
    }

    private static final Throwable PENDING = new TimeoutException("no reply yet (a majority had already answered)");

    /** Like {@link #all} but waits for the replies (not interruptible: every node is bounded by the timeout). */
    static <T> List<Reply<T>> await(int count, IntFunction<CompletableFuture<T>> call, long timeoutNanos) {
        return all(count, call, timeoutNanos).join();
    }

    /** How many nodes answered {@code expected}. */
    static <T> int count(List<Reply<T>> replies, T expected) {
        return (int) replies.stream()
                .filter(r -> r.answered() && expected.equals(r.value()))
                .count();
    }

    static int answered(List<? extends Reply<?>> replies) {
        return (int) replies.stream().filter(Reply::answered).count();
    }

    /** The first error among the replies, for the cause of an exception; {@code null} when all answered. */
    static Throwable firstError(List<? extends Reply<?>> replies) {
        return replies.stream()
                .map(Reply::error)
                .filter(e -> e != null)
                .findFirst()
                .orElse(null);
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
