package dev.distlock.core.script;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs {@link LockScript}s with EVALSHA. When Redis answers NOSCRIPT (restarted, failed over or
 * SCRIPT FLUSH) the script is sent once with EVAL, which also caches it again, and later calls go
 * back to EVALSHA. Keys and arguments only ever travel as KEYS/ARGV, never inside script text.
 * Internal: not part of the public API.
 */
public final class ScriptRunner {

    private final RedisScriptingAsyncCommands<String, String> commands;

    public ScriptRunner(RedisScriptingAsyncCommands<String, String> commands) {
        this.commands = commands;
    }

    /** Runs a script whose reply is an integer. */
    public CompletableFuture<Long> integer(LockScript script, String[] keys, String... args) {
        return run(script, ScriptOutputType.INTEGER, keys, args);
    }

    /** Runs a script whose reply is an array. */
    public CompletableFuture<List<Object>> array(LockScript script, String[] keys, String... args) {
        return run(script, ScriptOutputType.MULTI, keys, args);
    }

    /**
     * Cancelling the returned future cancels the Lettuce command behind it, so that a command given up
     * on (its caller's bound ran out) is not sent again by Lettuce after a reconnect.
     */
    private <T> CompletableFuture<T> run(LockScript script, ScriptOutputType type, String[] keys, String... args) {
        CompletableFuture<T> first =
                commands.<T>evalsha(script.sha1(), type, keys, args).toCompletableFuture();
        AtomicReference<CompletableFuture<T>> current = new AtomicReference<>(first);
        CompletableFuture<T> result = first.exceptionallyCompose(error -> {
            if (unwrap(error) instanceof RedisNoScriptException) {
                CompletableFuture<T> again =
                        commands.<T>eval(script.body(), type, keys, args).toCompletableFuture();
                current.set(again);
                return again;
            }
            return CompletableFuture.failedFuture(unwrap(error));
        });
        result.whenComplete((value, error) -> {
            if (result.isCancelled()) {
                current.get().cancel(true);
            }
        });
        return result;
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
