package dev.distlock.core.internal.redis;

import dev.distlock.core.internal.redis.script.ScriptCalls;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What the engine needs of a Redis, and all it sees of one: scripts on two connections, pub/sub
 * channels, two key probes, replica acknowledgements and connection events. {@link RedisConnections}
 * serves it from a Redis server (standalone, Sentinel or Cluster) through Lettuce; local mode serves it
 * in-process, running the same scripts, so gates, cohorting, the watchdog, handles, events and metrics
 * are the engine's own in both. Internal: not part of the public API.
 */
public interface RedisPort extends AutoCloseable {

    /**
     * The least time one step of a wait gets for an answer, even when the caller's wait has (almost) run
     * out, so that {@code tryLock(0)} still makes its one round trip: a Redis that does not answer costs a
     * zero wait at most this much.
     */
    long minStepNanos();

    /** Scripts of lock calls. */
    ScriptCalls scripts();

    /** Scripts of watchdog renewals, kept apart so that a round of renewals never queues in front of a lock call. */
    ScriptCalls renewals();

    /**
     * Subscriptions of one client: {@code onMessage} gets (channel, message) of each message published to a
     * subscribed channel, {@code onSubscribed} each confirmation of a subscription, again after a reconnect.
     */
    Channels channels(BiConsumer<String, String> onMessage, Consumer<String> onSubscribed);

    /** PTTL of {@code key}: -2 when absent, -1 without a TTL. */
    CompletableFuture<Long> pttl(String key);

    /** EXISTS of {@code key}: 1 or 0. */
    CompletableFuture<Long> exists(String key);

    /** The id of the server process behind this port, which tells two ports apart that reach one server; {@code null} when no one process is the server (Cluster). */
    CompletableFuture<@Nullable String> serverRunId();

    /** Whether {@link #waitForReplicas} can be sent: a standalone or Sentinel Redis, not a Cluster. */
    boolean acknowledgesReplicas();

    /** WAIT for {@code replicas} acknowledgements of this client's writes, at most {@code timeoutMs}. */
    CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMs);

    /**
     * Tells {@code failed} why a reconnect failed and {@code restored} when a connection is back; running
     * the returned handle stops it. A port without connections tells nothing.
     */
    Runnable onConnectionEvents(Consumer<Throwable> failed, Runnable restored);

    /**
     * Starts warning when the server's eviction policy may evict locks, within {@code timeoutNanos} per
     * check; running the returned handle stops it.
     */
    Runnable checkEvictionPolicy(long timeoutNanos);

    /** Closes the connections (and the Redis client, if this port owns it). */
    @Override
    void close();

    /** One client's pub/sub subscriptions. */
    interface Channels {

        /** Subscribes to {@code channel}; completes once the server confirmed it. */
        CompletableFuture<Void> subscribe(String channel);

        /** Unsubscribes from {@code channel}, without waiting. */
        void unsubscribe(String channel);
    }
}
