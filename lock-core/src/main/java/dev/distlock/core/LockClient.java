package dev.distlock.core;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Entry point: hands out distributed locks backed by one Redis (standalone, Sentinel or Cluster).
 * Thread-safe; create one per application and close it at shutdown. Closing stops lease renewal,
 * so locks still held expire within one lease.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.create(RedisURI.create("redis://localhost:6379"))) {
 *     RedisLock lock = client.getLock("nightly-report");
 *     lock.lock();
 *     try {
 *         ...
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 */
public final class LockClient implements AutoCloseable {

    /** The lock kind reported in events for {@link #getLock}. */
    public static final String REENTRANT = "reentrant";

    private final LockEngine engine;
    private final LockClientOptions options;
    private final AtomicBoolean closed = new AtomicBoolean();

    private LockClient(RedisConnections connections, LockClientOptions options) {
        this.options = options;
        this.engine = new LockEngine(connections, options);
    }

    /** Connects to {@code uri} with default options; the client owns (and closes) its connections. */
    public static LockClient create(RedisURI uri) {
        return create(uri, LockClientOptions.defaults());
    }

    /** Connects to {@code uri}; the client owns (and closes) its connections. */
    public static LockClient create(RedisURI uri, LockClientOptions options) {
        Objects.requireNonNull(uri, "uri must not be null");
        return new LockClient(RedisConnections.open(RedisClient.create(uri), true), Objects.requireNonNull(options, "options"));
    }

    /**
     * Uses an existing Lettuce {@link RedisClient} (standalone or Sentinel) or
     * {@code RedisClusterClient}; the client opens two connections of its own and closes them, but
     * never shuts {@code redisClient} down.
     *
     * @throws LockException when Redis cannot be reached
     */
    public static LockClient create(AbstractRedisClient redisClient, LockClientOptions options) {
        Objects.requireNonNull(redisClient, "redisClient must not be null");
        return new LockClient(RedisConnections.open(redisClient, false), Objects.requireNonNull(options, "options"));
    }

    /** A reentrant lock named {@code name}; cheap, no Redis call. */
    public RedisLock getLock(String name) {
        return getLock(name, name);
    }

    /**
     * A reentrant lock named {@code name}, reported in events under {@code label}: use a fixed label
     * (for example {@code OrderService.pay}) when names are per entity, to keep metrics small.
     */
    public RedisLock getLock(String name, String label) {
        LockKeys.requireName(name);
        return new ThreadBoundLock(engine, ReentrantKind.INSTANCE, new LockInfo(name, label == null ? name : label, REENTRANT));
    }

    /** Unique id of this client; part of every owner id it writes to Redis. */
    public String clientId() {
        return engine.clientId;
    }

    /** The options this client was built with. */
    public LockClientOptions options() {
        return options;
    }

    /** The engine, for {@link RedLockClient}, which runs single attempts on each node's engine. */
    LockEngine engine() {
        return engine;
    }

    /** How many locks this client holds right now (valid holds only). */
    public int activeHolds() {
        return engine.activeHolds();
    }

    /** Lock channels this client is subscribed to right now; for tests and diagnostics, not API. */
    int subscribedChannels() {
        return engine.subscribedChannels();
    }

    /** Lock names with a local gate in use; for tests and diagnostics, not API. */
    int localGates() {
        return engine.localGates();
    }

    /** Threads queued at local gates, in front of Redis; for tests and diagnostics, not API. */
    int localWaiters() {
        return engine.localWaiters();
    }

    /**
     * Stops the watchdog and closes the connections; held locks are not released (their holders may
     * still run) and expire within one lease. Calling it again does nothing.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            engine.close();
        }
    }
}
