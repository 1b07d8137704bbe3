package dev.distlock.core;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

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
    /** The lock kind reported in events for the read lock of {@link #getReadWriteLock}. */
    public static final String READ = "read";
    /** The lock kind reported in events for the write lock of {@link #getReadWriteLock}. */
    public static final String WRITE = "write";

    /** The lock kind reported in events for {@link #getFairLock}. */
    public static final String FAIR = "fair";

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
    public RedisLock getLock(String name, @Nullable String label) {
        return getLock(ReentrantKind.INSTANCE, name, label);
    }

    /**
     * A fair lock named {@code name}; cheap, no Redis call. Threads get it in the order they first
     * asked, across all clients: a waiting thread keeps its place in a queue in Redis and is woken
     * alone when its turn comes. A waiter that disappears without giving up (a crashed process)
     * holds up the queue for a few seconds at most. Use either the fair or the plain lock for a
     * given name, never both: the plain one would not queue.
     *
     * <pre>{@code
     * RedisLock lock = client.getFairLock("invoice-numbers");
     * lock.lock();
     * try {
     *     ...
     * } finally {
     *     lock.unlock();
     * }
     * }</pre>
     */
    public RedisLock getFairLock(String name) {
        return getFairLock(name, name);
    }

    /** A fair lock named {@code name}, reported in events under {@code label}; see {@link #getFairLock(String)}. */
    public RedisLock getFairLock(String name, @Nullable String label) {
        return getLock(FairKind.INSTANCE, name, label);
    }

    /** A thread-bound lock of any kind; tests use it for kinds with other timings. */
    RedisLock getLock(LockKind kind, String name, @Nullable String label) {
        LockKeys.requireName(name, options);
        return threadBound(kind, new LockInfo(name, label == null ? name : label, kind.name));
    }

    private ThreadBoundLock<Hold> threadBound(LockKind kind, LockInfo info) {
        return new ThreadBoundLock<>(info, engine.port(kind, info), "Lock");
    }

    /** A read/write lock named {@code name}; cheap, no Redis call. */
    public RedisReadWriteLock getReadWriteLock(String name) {
        return getReadWriteLock(name, name);
    }

    /**
     * A read/write lock named {@code name}, its read and write locks reported in events under
     * {@code label} with kinds {@value #READ} and {@value #WRITE}.
     */
    public RedisReadWriteLock getReadWriteLock(String name, @Nullable String label) {
        LockKeys.requireName(name, options);
        String shownAs = label == null ? name : label;
        return new ThreadBoundReadWriteLock(name,
                threadBound(ReadWriteKind.READ, new LockInfo(name, shownAs, READ)),
                threadBound(ReadWriteKind.WRITE, new LockInfo(name, shownAs, WRITE)));
    }

    /**
     * Several locks taken as one, all or nothing, in sorted name order (no deadlock between callers
     * naming them in different orders). Duplicate names count once.
     *
     * @throws IllegalArgumentException when no name is given or a name is null or blank
     */
    public RedisMultiLock getMultiLock(String... names) {
        return getMultiLock(names == null ? null : Arrays.asList(names), null);
    }

    /** {@link #getMultiLock(String...)} with every lock reported in events under {@code label}. */
    public RedisMultiLock getMultiLock(Collection<String> names, @Nullable String label) {
        if (names == null || names.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock name");
        }
        List<String> sorted = names.stream().map(n -> LockKeys.requireName(n, options)).distinct().sorted().toList();
        List<RedisLock> locks = sorted.stream().map(n -> getLock(n, label)).toList();
        return new MultiLock(sorted, locks);
    }

    /** Unique id of this client; part of every owner id it writes to Redis. */
    public String clientId() {
        return engine.clientId;
    }

    /** The options this client was built with. */
    public LockClientOptions options() {
        return options;
    }

    /** This client's Redis as a node of a {@link RedLockClient}, which runs single attempts on each node. */
    RedisNode node() {
        return engine.node();
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
     * still run) and expire within one lease. Threads waiting for a lock of this client wake at once
     * with a {@link LockException}, and every later call on its locks throws a {@link LockException}
     * saying the client is closed. Calling it again does nothing.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            engine.close();
        }
    }
}
