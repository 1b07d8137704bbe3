package dev.distlock.core.script;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

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

    private <T> CompletableFuture<T> run(LockScript script, ScriptOutputType type, String[] keys, String... args) {
        CompletionStage<T> first = commands.evalsha(script.sha1(), type, keys, args);
        return first.toCompletableFuture().exceptionallyCompose(error -> {
            if (unwrap(error) instanceof RedisNoScriptException) {
                CompletionStage<T> again = commands.eval(script.body(), type, keys, args);
                return again.toCompletableFuture();
            }
            return CompletableFuture.failedFuture(unwrap(error));
        });
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
