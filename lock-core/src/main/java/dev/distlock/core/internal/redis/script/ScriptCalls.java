package dev.distlock.core.internal.redis.script;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Runs {@link LockScript}s somewhere that speaks Redis scripting: a Redis server through
 * {@link ScriptRunner}, or the in-process store of local mode. Keys and arguments travel as KEYS and
 * ARGV; a cancelled future means the caller gave up on the call. Internal: not part of the public API.
 */
public interface ScriptCalls {

    /** Runs a script whose reply is an integer. */
    CompletableFuture<Long> integer(LockScript script, String[] keys, String... args);

    /** Runs a script whose reply is a flat array of integers, strings and nils. */
    CompletableFuture<List<Object>> array(LockScript script, String[] keys, String... args);
}
