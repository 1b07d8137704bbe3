package dev.distlock.core.internal.redis;

import dev.distlock.core.LockException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * What a failed Redis call means: whether sending it again may succeed ({@link #isTransient}), whether
 * Redis refused it only for now ({@link #refusedForNow}), and the exception its caller is given.
 * Internal: not part of the public API.
 */
public final class RedisFailures {

    private RedisFailures() {}

    /**
     * Waits for {@code future} without being interruptible (an interrupt is kept for the caller) and
     * returns its value, or throws what it failed with: lock exceptions as they are. Every future it
     * is given is bounded by a timer of its own.
     */
    public static <T> T join(CompletableFuture<T> future) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw asLockException(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * {@code error} as thrown to a caller: runtime exceptions as they are (Redis failures reach here as
     * {@link LockException}s already), anything else wrapped.
     */
    public static RuntimeException asLockException(Throwable error) {
        Throwable cause = unwrap(error);
        if (cause instanceof RuntimeException runtime) {
            return runtime;
        }
        return new LockException("Redis call failed: " + cause, cause);
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /** Whether sending the same call again may succeed: the connection or the server was briefly unable, not the call wrong. */
    public static boolean isTransient(Throwable e) {
        if (e instanceof RedisCommandTimeoutException
                || e instanceof RedisConnectionException
                || e instanceof IOException
                || e instanceof TimeoutException
                || e instanceof CancellationException) { // Lettuce cancels when a reconnect fails
            return true;
        }
        String message = e.getMessage();
        if (message == null) {
            return false;
        }
        if (refusedForNow(e)) {
            return true;
        }
        // Lettuce rejects commands while disconnected when told to (DisconnectedBehavior.REJECT), and fails a
        // command in flight when its connection drops ("Connection disconnected", "Connection closed"): every
        // script is safe to run again, so all of these are worth another try once it reconnects.
        return e instanceof RedisException
                && (message.contains("not connected")
                        || message.contains("Connection reset")
                        || message.contains("Connection disconnected")
                        || message.contains("Connection closed"));
    }

    /**
     * Whether Redis answered, refusing the call only for now: TRYAGAIN while a Cluster slot migrates,
     * LOADING, BUSY, READONLY or MASTERDOWN during a restart or failover, CLUSTERDOWN. Unlike silence,
     * this is worth riding out for a caller's whole wait.
     */
    public static boolean refusedForNow(@Nullable Throwable e) {
        String message = e == null ? null : e.getMessage();
        if (message == null) {
            return false;
        }
        for (String prefix : new String[] {"TRYAGAIN", "LOADING", "BUSY", "READONLY", "MASTERDOWN", "CLUSTERDOWN"}) {
            if (message.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    public static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }
}
