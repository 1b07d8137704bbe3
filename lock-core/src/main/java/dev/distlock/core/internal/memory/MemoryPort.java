package dev.distlock.core.internal.memory;

import dev.distlock.core.internal.redis.RedisPort;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.internal.redis.script.ScriptCalls;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The engine's {@link RedisPort} on a {@link MemoryRedis} of its own: local mode. Scripts, renewals and
 * pub/sub go to the in-process store, which runs the same scripts as Redis; there are no connections to
 * lose, no replicas to wait for and no eviction policy to check. Internal: not part of the public API.
 */
public final class MemoryPort implements RedisPort {

    private final MemoryRedis redis;
    /** Whether closing this port closes the store: a store shared by several clients outlives each. */
    private final boolean owned;

    private final ScriptCalls scripts;
    /** Tells two stores apart, as a Redis run id tells two servers apart (a local RedLock's nodes). */
    private final String runId = "memory-" + UUID.randomUUID();

    private MemoryPort(MemoryRedis redis, boolean owned) {
        this.redis = redis;
        this.owned = owned;
        this.scripts = new ScriptCalls() {
            @Override
            public CompletableFuture<Long> integer(LockScript script, String[] keys, String... args) {
                return redis.integer(script, keys, args);
            }

            @Override
            public CompletableFuture<List<Object>> array(LockScript script, String[] keys, String... args) {
                return redis.array(script, keys, args);
            }
        };
    }

    /**
     * A port on a new in-process store of its own.
     *
     * @throws IllegalStateException when LuaJ, which runs the scripts in-process, is not on the class path
     */
    public static MemoryPort open() {
        requireLuaJ();
        return new MemoryPort(new MemoryRedis(), true);
    }

    /**
     * A port on {@code redis}, which several clients may share as instances share one Redis (tests); closing
     * the port leaves the store open.
     */
    public static MemoryPort of(MemoryRedis redis) {
        requireLuaJ();
        return new MemoryPort(redis, false);
    }

    private static void requireLuaJ() {
        try {
            Class.forName("org.luaj.vm2.Globals", false, MemoryPort.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalStateException(
                    "Local locks run the lock scripts in-process with LuaJ, which is not on the class path:"
                            + " add org.luaj:luaj-jse:3.0.1 (the Spring Boot starter brings it)",
                    e);
        }
    }

    /**
     * The whole operation timeout: the store is in this JVM and always answers, unless the JVM itself
     * stands still, so a zero wait gets its answer instead of a "did not answer" on a busy host.
     */
    @Override
    public long minStepNanos() {
        return Long.MAX_VALUE;
    }

    @Override
    public ScriptCalls scripts() {
        return scripts;
    }

    @Override
    public ScriptCalls renewals() {
        return scripts;
    }

    @Override
    public Channels channels(BiConsumer<String, String> onMessage, Consumer<String> onSubscribed) {
        Subscriber subscriber = redis.subscriber(onMessage, onSubscribed);
        return new Channels() {
            @Override
            public CompletableFuture<Void> subscribe(String channel) {
                return subscriber.subscribe(channel);
            }

            @Override
            public void unsubscribe(String channel) {
                subscriber.unsubscribe(channel);
            }
        };
    }

    @Override
    public CompletableFuture<Long> pttl(String key) {
        return redis.pttl(key);
    }

    @Override
    public CompletableFuture<Long> exists(String key) {
        return redis.exists(key);
    }

    @Override
    public CompletableFuture<@Nullable String> serverRunId() {
        return CompletableFuture.completedFuture(runId);
    }

    /** Yes: an in-process store has no replicas, so every write is as safe as it will get at once. */
    @Override
    public boolean acknowledgesReplicas() {
        return true;
    }

    /** Answers at once that all {@code replicas} acknowledged: there are none to lose a write. */
    @Override
    public CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMs) {
        return CompletableFuture.completedFuture((long) replicas);
    }

    @Override
    public Runnable onConnectionEvents(Consumer<Throwable> failed, Runnable restored) {
        return () -> {};
    }

    @Override
    public Runnable checkEvictionPolicy(long timeoutNanos) {
        return () -> {};
    }

    @Override
    public void close() {
        if (owned) {
            redis.close();
        }
    }
}
