package dev.distlock.core;

import dev.distlock.core.internal.memory.MemoryRedis.Entry;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** What one run of a script call did: its reply or error, its KEYS' state afterwards, the messages it published. */
record ScriptOutcome(
        @Nullable Object reply, @Nullable Throwable error, Map<String, Entry> after, List<String> messages) {

    String describe() {
        return (error != null ? "error " + error.getMessage() : "reply " + reply) + "\n      state " + after
                + "\n      messages " + messages;
    }
}
