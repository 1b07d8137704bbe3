package dev.distlock.core.script;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

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
        ScriptCall<T> call = new ScriptCall<>(script, type, keys, args);
        call.send(commands.<T>evalsha(script.sha1(), type, keys, args).toCompletableFuture(), true);
        return call;
    }

    /**
     * One script run: completed by the Lettuce command in flight, which it cancels when cancelled.
     * One stage per command (the reply goes straight to the caller's future), as this runs twice for
     * every lock and unlock, on the connection's event loop.
     */
    private final class ScriptCall<T> extends CompletableFuture<T> {

        private final LockScript script;
        private final ScriptOutputType type;
        private final String[] keys;
        private final String[] args;
        private volatile CompletableFuture<T> inFlight;

        ScriptCall(LockScript script, ScriptOutputType type, String[] keys, String[] args) {
            this.script = script;
            this.type = type;
            this.keys = keys;
            this.args = args;
        }

        void send(CompletableFuture<T> command, boolean firstTry) {
            inFlight = command;
            command.whenComplete((value, error) -> {
                if (error == null) {
                    complete(value);
                } else if (firstTry && unwrap(error) instanceof RedisNoScriptException) {
                    // Sent with its text once: Redis caches it again, and later calls go back to EVALSHA.
                    try {
                        send(commands.<T>eval(script.body(), type, keys, args).toCompletableFuture(), false);
                    } catch (RuntimeException refused) { // a client that refuses at once (closed, disconnected)
                        completeExceptionally(refused);
                    }
                } else {
                    completeExceptionally(unwrap(error));
                }
            });
            if (isCancelled()) { // cancelled while this command was being sent
                command.cancel(true);
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean cancelled = super.cancel(mayInterruptIfRunning);
            CompletableFuture<T> command = inFlight;
            if (command != null) {
                command.cancel(true);
            }
            return cancelled;
        }
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }
}
