package dev.distlock.core.internal.redis;

import dev.distlock.core.LockException;
import dev.distlock.core.LockUnavailableException;
import io.lettuce.core.RedisCommandTimeoutException;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every Redis call of a client, bounded in time and retried while the failure is transient. A call
 * that has not answered by its deadline is cancelled (so Lettuce does not send it again after a
 * reconnect) and reported as {@link LockUnavailableException}; transient failures (a reset
 * connection, a command time-out of the Lettuce client, TRYAGAIN during a slot migration, LOADING,
 * BUSY, READONLY or MASTERDOWN during a failover) are sent again with a short back-off until the
 * deadline. Sending again is safe because every script is idempotent (see the scripts' headers).
 */
public final class RedisCalls {

    private static final Logger log = LoggerFactory.getLogger(RedisCalls.class);

    static final long FIRST_BACK_OFF_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    static final long MAX_BACK_OFF_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final long operationTimeoutNanos;
    /** The least time one step of a wait gets: {@link RedisPort#minStepNanos()}. */
    private final long minStepNanos;

    private final ScheduledExecutorService timers;
    private volatile boolean closed;
    /** Async calls not completed yet, failed by {@link #close()} (a call added after it sees {@code closed}). */
    private final Set<CompletableFuture<?>> unfinished = ConcurrentHashMap.newKeySet();
    /** Why the connection to Redis last failed to reconnect; {@code null} once connected again. */
    private volatile @Nullable Throwable connectionFailure;

    /** Calls bounded by the operation timeout, each step of a wait getting at least {@code minStepNanos} of it. */
    public RedisCalls(long operationTimeoutNanos, long minStepNanos, ScheduledExecutorService timers) {
        this.minStepNanos = Math.min(minStepNanos, operationTimeoutNanos);
        this.operationTimeoutNanos = operationTimeoutNanos;
        this.timers = timers;
    }

    /** The deadline of an operation that starts now and has no bound of its own. */
    public long operationDeadline() {
        return System.nanoTime() + operationTimeoutNanos;
    }

    public long operationTimeoutNanos() {
        return operationTimeoutNanos;
    }

    /** The deadline of one acquire step: the caller's deadline, but at least the least step and at most the operation timeout. */
    public long stepDeadline(long callerDeadline) {
        long now = System.nanoTime();
        long latest = now + operationTimeoutNanos;
        long earliest = now + minStepNanos;
        return callerDeadline - latest > 0 ? latest : (callerDeadline - earliest < 0 ? earliest : callerDeadline);
    }

    /**
     * Fails every async call still going: closing the client drops the timers, and with them the next
     * attempt of a call waiting out its back-off, which would then never complete.
     */
    public void close() {
        closed = true;
        for (CompletableFuture<?> call : unfinished) {
            call.completeExceptionally(closedException());
        }
    }

    ScheduledExecutorService timers() {
        return timers;
    }

    public boolean isClosed() {
        return closed;
    }

    /** Thrown by every call once the client is closed. */
    public LockException closedException() {
        return new LockException("The LockClient is closed: create a new one to take locks", null);
    }

    /**
     * Sends {@code call} and waits for its reply until {@code deadline} (System.nanoTime), sending it
     * again after transient failures. Not interruptible: a grant half seen must not leak; an interrupt
     * is kept for the caller.
     *
     * @throws LockUnavailableException when no reply came by the deadline
     * @throws LockException when Redis answered with an error that retrying cannot mend
     */
    public <T> T call(Supplier<CompletableFuture<T>> call, long deadline, String doing, LockKeys keys) {
        // The waiting thread is its own timer here: no timer task per call, which would cost every lock and
        // unlock a trip through the client's one timer queue.
        long backOff = FIRST_BACK_OFF_NANOS;
        Throwable last = null;
        boolean interrupted = false;
        try {
            while (true) {
                if (closed) {
                    throw closedException();
                }
                CompletableFuture<T> future = send(call);
                Throwable cause;
                while (true) {
                    long left = deadline - System.nanoTime();
                    try {
                        if (left <= 0) {
                            throw new TimeoutException();
                        }
                        return future.get(left, TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        interrupted = true;
                    } catch (TimeoutException e) {
                        future.cancel(true); // so that Lettuce does not send it again after a reconnect
                        throw unavailable(doing, keys, last);
                    } catch (ExecutionException | CancellationException e) {
                        cause = RedisFailures.unwrap(e instanceof ExecutionException ? e.getCause() : e);
                        break;
                    }
                }
                RuntimeException fatal = fatal(cause, doing, keys);
                if (fatal != null) {
                    throw fatal;
                }
                last = cause;
                long pause = Math.min(backOff, deadline - System.nanoTime());
                if (pause <= 0) {
                    throw unavailable(doing, keys, last);
                }
                LockSupport.parkNanos(pause);
                interrupted |= Thread.interrupted();
                backOff = Math.min(backOff * 2, MAX_BACK_OFF_NANOS);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * What a failed attempt means for its call: {@code null} when sending it again may succeed (a
     * transient failure), else the exception the call ends with.
     */
    @Nullable
    RuntimeException fatal(Throwable cause, String doing, LockKeys keys) {
        if (cause instanceof LockRefusedException refused) {
            return refused.again(); // a refusal, not a Redis failure
        }
        if (closed) {
            return closedException();
        }
        if (!RedisFailures.isTransient(cause)) {
            return new LockException(
                    "Redis failed while " + doing + " lock " + keys.lock() + ": " + cause.getMessage(), cause);
        }
        return null;
    }

    /**
     * Like {@link #call} without blocking: the returned future completes with the reply, or with
     * {@link LockUnavailableException} at the deadline, or with a {@link LockException}. Completing or
     * cancelling it early cancels the command in flight (so Lettuce does not send it again).
     */
    public <T> CompletableFuture<T> callAsync(
            Supplier<CompletableFuture<T>> call, long deadline, String doing, LockKeys keys) {
        return callAsync(call, deadline, doing, keys, null);
    }

    /**
     * {@link #callAsync(Supplier, long, String, LockKeys)} for a call whose effect in Redis its caller undoes
     * when it stops early (an acquire: its grant given back, its fair-queue place left). A retry may send the
     * command in the very instant the caller stops, so that it reaches Redis after the undo: such a command
     * is left to go out, and {@code sentLate} is given it, to undo it once more, after it on the same
     * connection. (Cancelling it at once would leave to chance whether it goes out: Lettuce drops a
     * command cancelled before its I/O thread wrote it, and only then.) {@code sentLate} must cancel it no
     * later than it stops trying to undo it, so that Lettuce cannot send it again, alone, after a reconnect.
     */
    public <T> CompletableFuture<T> callAsync(
            Supplier<CompletableFuture<T>> call,
            long deadline,
            String doing,
            LockKeys keys,
            @Nullable Consumer<CompletableFuture<T>> sentLate) {
        CompletableFuture<T> result = new CompletableFuture<>();
        AtomicReference<CompletableFuture<T>> inFlight = new AtomicReference<>();
        unfinished.add(result);
        result.whenComplete((value, error) -> {
            unfinished.remove(result);
            CompletableFuture<T> sent = inFlight.get();
            if (sent != null && !sent.isDone()) {
                sent.cancel(true);
            }
        });
        new AsyncCall<>(this, call, deadline, doing, keys, result, inFlight, sentLate)
                .attempt(FIRST_BACK_OFF_NANOS, null);
        return result;
    }

    /**
     * Sends {@code call} without waiting, retrying transient failures with back-off until {@code until}
     * (System.nanoTime): for clean-ups nobody waits for, such as giving back a grant whose reply never came.
     */
    public void inBackground(Supplier<CompletableFuture<?>> call, long until, String doing, LockKeys keys) {
        inBackground(call, until, doing, keys, FIRST_BACK_OFF_NANOS);
    }

    private void inBackground(
            Supplier<CompletableFuture<?>> call, long until, String doing, LockKeys keys, long backOff) {
        if (closed) {
            return;
        }
        long left = until - System.nanoTime();
        CompletableFuture<?> future;
        try {
            future = call.get();
        } catch (RuntimeException e) {
            future = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<?> sent = future;
        future.orTimeout(Math.max(1, left), TimeUnit.NANOSECONDS).whenComplete((value, error) -> {
            if (error == null) {
                return;
            }
            Throwable cause = RedisFailures.unwrap(error);
            long remaining = until - System.nanoTime();
            if (cause instanceof TimeoutException
                    || !RedisFailures.isTransient(cause)
                    || remaining <= backOff
                    || closed) {
                sent.cancel(true);
                log.warn(
                        "Gave up {} lock {} in the background; it expires with its lease: {}",
                        doing,
                        keys.lock(),
                        cause.toString());
                return;
            }
            try {
                timers.schedule(
                        () -> inBackground(call, until, doing, keys, Math.min(backOff * 2, MAX_BACK_OFF_NANOS)),
                        backOff,
                        TimeUnit.NANOSECONDS);
            } catch (RuntimeException e) { // the scheduler was shut down by close()
                log.debug("Not retrying {} lock {}: {}", doing, keys.lock(), e.toString());
            }
        });
    }

    static <T> CompletableFuture<T> send(Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (RuntimeException e) { // a client that refuses at once (closed, disconnected and rejecting)
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Records why a reconnect failed ({@code null}: a connection is back), the cause of calls that time out meanwhile. */
    public void connectionFailed(@Nullable Throwable cause) {
        connectionFailure = cause;
    }

    LockUnavailableException unavailable(String doing, LockKeys keys, @Nullable Throwable last) {
        // A call sent while Lettuce reconnects waits in its buffer and times out with no error of its own: then
        // the reconnect's failure ("Connection refused") is the root cause, kept as the cause, not only logged.
        Throwable failure = connectionFailure;
        boolean fromConnection = failure != null
                && (last == null || last instanceof TimeoutException || last instanceof RedisCommandTimeoutException);
        LockUnavailableException e = new LockUnavailableException(
                "Redis did not answer while " + doing + " lock " + keys.lock() + " within the bound"
                        + (last == null ? "" : "; last error: " + last.getMessage())
                        + (fromConnection
                                ? "; reconnecting to Redis failed: " + RedisFailures.rootMessage(failure)
                                : "")
                        + " (Redis down, paused or unreachable; the bound is the wait time, or operationTimeout where there is none)",
                fromConnection ? failure : last);
        if (fromConnection && last != null) {
            e.addSuppressed(last);
        }
        return e;
    }
}
