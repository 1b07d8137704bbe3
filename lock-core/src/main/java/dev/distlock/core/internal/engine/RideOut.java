package dev.distlock.core.internal.engine;

import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.support.Durations;
import org.jspecify.annotations.Nullable;

/**
 * What a wait does with a try that Redis did not answer within its step (silence: a stalled or
 * dropped connection, a paused or restarting server) or refused for now (TRYAGAIN, LOADING, a
 * failover): it sends the try again, under the same grant id, until the wait's deadline. Every
 * acquire script is idempotent, so a try that Redis ran although its reply never came is the same
 * grant when sent again. A wait thus survives any outage that ends before its deadline, and fails
 * with {@link LockUnavailableException} only when its last try, reaching the deadline, went
 * unanswered. Each try is bounded by the deadline (at least the least step of its RedisPort), so a
 * wait returns at most that long after its deadline.
 *
 * <p>A wait for ever ({@code lock()}) rides out refusals for now only: silence ends it after one
 * operation timeout, as {@link dev.distlock.core.LockClientOptions#operationTimeout()} documents, so
 * that a caller with no bound of its own still hears that Redis is down; a RedLock's {@code lock()}
 * likewise ({@link #roundTriedAgain}).
 */
public final class RideOut {

    private RideOut() {}

    /** Whether a try of a wait that started at {@code startNanos} and ends at {@code deadline} that failed with {@code error} is sent again. */
    static boolean sendAgain(@Nullable Throwable error, long startNanos, long deadline) {
        Throwable failure = error == null ? null : RedisFailures.unwrap(error);
        if (!(failure instanceof LockUnavailableException)) {
            return false;
        }
        return silenceRiddenOut(startNanos, deadline)
                || (RedisFailures.refusedForNow(failure.getCause()) && deadline - System.nanoTime() > 0);
    }

    /**
     * Whether a wait that started at {@code startNanos} and ends at {@code deadline} sends a try again that
     * Redis did not answer: while its deadline has not come, unless it waits for ever (each of its tries then
     * waits one operation timeout for its reply).
     */
    private static boolean silenceRiddenOut(long startNanos, long deadline) {
        return deadline - startNanos < Durations.FOREVER_NANOS && deadline - System.nanoTime() > 0;
    }

    /**
     * Whether a RedLock round that too few nodes answered is tried again: in a wait with an end, until it
     * ends; in a wait for ever ({@code lock()}), while no majority has answered for less than one operation
     * timeout ({@code silentSinceNanos}: the end of the last round a majority answered, or the wait's
     * start), as a LockClient's {@code lock()} waits that long for one reply.
     */
    public static boolean roundTriedAgain(
            long startNanos, long deadline, long silentSinceNanos, long operationTimeoutNanos) {
        return deadline - startNanos < Durations.FOREVER_NANOS
                ? silenceRiddenOut(startNanos, deadline)
                : System.nanoTime() - silentSinceNanos < operationTimeoutNanos;
    }

    /**
     * As {@link #sendAgain} for a blocking wait: returns when the try is to be sent again, else throws
     * {@code error}; throws {@link InterruptedException} when an interruptible caller was interrupted
     * while Redis did not answer (after {@code giveBack} of a grant the lost reply may have carried).
     */
    static void orThrow(LockUnavailableException error, AcquireRequest request, long deadline, Runnable giveBack)
            throws InterruptedException {
        if (!sendAgain(error, request.startNanos(), deadline)) {
            throw error;
        }
        if (request.interruptible() && Thread.interrupted()) {
            giveBack.run();
            InterruptedException stop = new InterruptedException(
                    "Interrupted while waiting for lock '" + request.info().key() + "' (Redis was not answering)");
            stop.initCause(error);
            throw stop;
        }
    }
}
