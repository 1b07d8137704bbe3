package dev.distlock.core.internal.redis.script;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * Runs {@link LockScript}s with EVALSHA. When Redis answers NOSCRIPT (restarted, failed over or
 * SCRIPT FLUSH) the script is sent once with EVAL, which also caches it again, and later calls go
 * back to EVALSHA. Keys and arguments only ever travel as KEYS/ARGV, never inside script text.
 * Internal: not part of the public API.
 */
public final class ScriptRunner implements ScriptCalls {

    private final RedisClusterAsyncCommands<String, String> commands;
    private final RedisCodec<String, String> codec;
    /** Whether each script runs as its {@linkplain LockScript#sharded() sharded variant} (SPUBLISH). */
    private final boolean sharded;

    /**
     * Runs scripts on {@code commands}, encoding keys and arguments with {@code codec}; with {@code sharded},
     * each as its {@linkplain LockScript#sharded() sharded variant}, which publishes with SPUBLISH.
     */
    public ScriptRunner(
            RedisClusterAsyncCommands<String, String> commands, RedisCodec<String, String> codec, boolean sharded) {
        this.commands = commands;
        this.codec = codec;
        this.sharded = sharded;
    }

    /** Runs scripts on {@code commands}, keys and arguments in UTF-8, publishing with PUBLISH. */
    public ScriptRunner(RedisClusterAsyncCommands<String, String> commands) {
        this(commands, StringCodec.UTF8, false);
    }

    @Override
    public CompletableFuture<Long> integer(LockScript script, String[] keys, String... args) {
        return run(script, IntegerOutput::new, keys, args);
    }

    /** A flat array as {@link FlatArrayOutput} reads it. */
    @Override
    public CompletableFuture<List<Object>> array(LockScript script, String[] keys, String... args) {
        return run(script, FlatArrayOutput::new, keys, args);
    }

    /**
     * Cancelling the returned future cancels the Lettuce command behind it, so that a command given up
     * on (its caller's bound ran out) is not sent again by Lettuce after a reconnect.
     */
    private <T> CompletableFuture<T> run(
            LockScript script,
            Function<RedisCodec<String, String>, CommandOutput<String, String, T>> output,
            String[] keys,
            String... args) {
        LockScript run = sharded ? script.sharded() : script;
        ScriptCall<T> call = new ScriptCall<>(run, output, keys, args);
        call.send(call.dispatch(CommandType.EVALSHA, run.sha1()), true);
        return call;
    }

    /**
     * One script run: completed by the Lettuce command in flight, which it cancels when cancelled.
     * One stage per command (the reply goes straight to the caller's future), as this runs twice for
     * every lock and unlock, on the connection's event loop.
     */
    private final class ScriptCall<T> extends CompletableFuture<T> {

        private final LockScript script;
        private final Function<RedisCodec<String, String>, CommandOutput<String, String, T>> output;
        private final String[] keys;
        private final String[] args;
        private volatile CompletableFuture<T> inFlight;

        ScriptCall(
                LockScript script,
                Function<RedisCodec<String, String>, CommandOutput<String, String, T>> output,
                String[] keys,
                String[] args) {
            this.script = script;
            this.output = output;
            this.keys = keys;
            this.args = args;
        }

        /**
         * EVALSHA or EVAL as Lettuce's own methods send it (the keys marked as keys, for Redis Cluster's
         * routing), but with an output of its own.
         */
        CompletableFuture<T> dispatch(CommandType type, String shaOrBody) {
            CommandArgs<String, String> commandArgs = new CommandArgs<>(codec)
                    .add(shaOrBody)
                    .add(keys.length)
                    .addKeys(keys)
                    .addValues(args);
            return commands.dispatch(type, output.apply(codec), commandArgs).toCompletableFuture();
        }

        void send(CompletableFuture<T> command, boolean firstTry) {
            inFlight = command;
            command.whenComplete((value, error) -> {
                if (error == null) {
                    complete(value);
                } else if (firstTry && unwrap(error) instanceof RedisNoScriptException) {
                    // Sent with its text once: Redis caches it again, and later calls go back to EVALSHA.
                    try {
                        send(dispatch(CommandType.EVAL, script.body()), false);
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
