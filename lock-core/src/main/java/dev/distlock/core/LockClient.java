package dev.distlock.core;

import dev.distlock.core.internal.engine.FairKind;
import dev.distlock.core.internal.engine.Hold;
import dev.distlock.core.internal.engine.LockEngine;
import dev.distlock.core.internal.engine.LockKind;
import dev.distlock.core.internal.engine.ReadWriteKind;
import dev.distlock.core.internal.engine.RedisNode;
import dev.distlock.core.internal.engine.ReentrantKind;
import dev.distlock.core.internal.leader.Candidate;
import dev.distlock.core.internal.lock.LockView;
import dev.distlock.core.internal.lock.MultiLock;
import dev.distlock.core.internal.lock.ThreadBoundLock;
import dev.distlock.core.internal.lock.ThreadBoundReadWriteLock;
import dev.distlock.core.internal.memory.MemoryPort;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.RedisConnections;
import dev.distlock.core.internal.redis.RedisPort;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
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

    private final LockEngine engine;
    private final LockClientOptions options;
    private final AtomicBoolean closed;
    private final LockView view;

    private LockClient(RedisPort redis, LockClientOptions options) {
        this.options = options;
        this.engine = new LockEngine(redis, options);
        this.closed = new AtomicBoolean();
        this.view = new LockView(false, options.maxHold());
    }

    private LockClient(LockClient client, LockView view) {
        this.options = client.options;
        this.engine = client.engine;
        this.closed = client.closed;
        this.view = view;
    }

    /** Connects to {@code uri} with default options; the client owns (and closes) its connections. */
    public static LockClient create(RedisURI uri) {
        return create(uri, LockClientOptions.defaults());
    }

    /** Connects to {@code uri}; the client owns (and closes) its connections. */
    public static LockClient create(RedisURI uri, LockClientOptions options) {
        Objects.requireNonNull(uri, "uri must not be null");
        Objects.requireNonNull(options, "options must not be null: use LockClientOptions.defaults()");
        return new LockClient(RedisConnections.open(RedisClient.create(uri), true, options.pubSub()), options);
    }

    /**
     * Uses an existing Lettuce {@link RedisClient} (standalone or Sentinel) or {@code RedisClusterClient}; the client opens
     * three connections of its own (commands, renewals, pub/sub) and closes them, but never shuts {@code redisClient} down.
     *
     * @throws LockException when Redis cannot be reached
     */
    public static LockClient create(AbstractRedisClient redisClient, LockClientOptions options) {
        Objects.requireNonNull(redisClient, "redisClient must not be null");
        Objects.requireNonNull(options, "options must not be null: use LockClientOptions.defaults()");
        return new LockClient(RedisConnections.open(redisClient, false, options.pubSub()), options);
    }

    /**
     * A client whose locks live in this JVM only, for tests and single-instance development: an
     * in-process store runs the same lock scripts as Redis, under the same engine, so kinds, fencing
     * tokens, leases and the watchdog, listener events and exceptions behave as on Redis. NOT
     * distributed: another process, or another local client, does not see these locks. Needs LuaJ
     * ({@code org.luaj:luaj-jse}) on the class path, which the Spring Boot starter brings.
     *
     * @throws IllegalStateException when LuaJ is not on the class path
     */
    public static LockClient local(LockClientOptions options) {
        Objects.requireNonNull(options, "options must not be null: use LockClientOptions.defaults()");
        return new LockClient(MemoryPort.open(), options);
    }

    /** A local client on {@code port}, whose store other clients may share (tests). */
    static LockClient local(MemoryPort port, LockClientOptions options) {
        return new LockClient(port, options);
    }

    /** A reentrant lock on {@code key}; cheap, no Redis call. Events and metrics call it by its key. */
    public RedisLock getLock(String key) {
        return getLock(key, key);
    }

    /**
     * A reentrant lock on {@code key}, called {@code name} in events and metrics: use a fixed name
     * (for example {@code order-payment}) when keys are per entity ({@code order:42}), to keep metrics small.
     */
    public RedisLock getLock(String key, @Nullable String name) {
        return getLock(ReentrantKind.INSTANCE, key, name);
    }

    /**
     * A fair lock on {@code key}; cheap, no Redis call. Threads get it in the order they first asked,
     * across all clients: a waiter keeps its place in a queue in Redis and is woken alone when its turn
     * comes; one that disappears without giving up (a crashed process) holds the queue up for a few
     * seconds at most. Use either the fair or the plain lock for a given key, never both.
     */
    public RedisLock getFairLock(String key) {
        return getFairLock(key, key);
    }

    /** A fair lock on {@code key}, called {@code name} in events and metrics; see {@link #getFairLock(String)}. */
    public RedisLock getFairLock(String key, @Nullable String name) {
        return getLock(FairKind.INSTANCE, key, name);
    }

    /** A thread-bound lock of any kind; tests use it for kinds with other timings. */
    RedisLock getLock(LockKind kind, String key, @Nullable String name) {
        LockKeys.requireName(key, options);
        return threadBound(kind, view.info(key, name, kind.type));
    }

    private ThreadBoundLock<Hold> threadBound(LockKind kind, LockInfo info) {
        return new ThreadBoundLock<>(info, engine.port(kind, info), "Lock");
    }

    /** A read/write lock on {@code key}; cheap, no Redis call. */
    public RedisReadWriteLock getReadWriteLock(String key) {
        return getReadWriteLock(key, key);
    }

    /**
     * A read/write lock on {@code key}, its read and write locks called {@code name} in events and
     * metrics, with types {@link LockType#READ} and {@link LockType#WRITE}.
     */
    public RedisReadWriteLock getReadWriteLock(String key, @Nullable String name) {
        LockKeys.requireName(key, options);
        String shownAs = name == null ? key : name;
        return new ThreadBoundReadWriteLock(
                key,
                threadBound(ReadWriteKind.READ, view.info(key, shownAs, LockType.READ)),
                threadBound(ReadWriteKind.WRITE, view.info(key, shownAs, LockType.WRITE)));
    }

    /**
     * A semaphore on {@code key} with {@code permits} permits; cheap, no Redis call. Every client must
     * declare the same number for a key; see {@link RedisSemaphore}.
     *
     * @throws IllegalArgumentException when {@code permits} is below 1
     */
    public RedisSemaphore getSemaphore(String key, int permits) {
        return semaphore(key, permits, false);
    }

    /** A semaphore whose waiters are served in the order they first asked; see {@link #getSemaphore}. */
    public RedisSemaphore getFairSemaphore(String key, int permits) {
        return semaphore(key, permits, true);
    }

    private RedisSemaphore semaphore(String key, int permits, boolean fair) {
        LockKeys.requireName(key, options);
        LockType type = fair ? LockType.FAIR_SEMAPHORE : LockType.SEMAPHORE;
        return engine.semaphore(view.info(key, key, type), permits, fair);
    }

    /**
     * Several locks taken as one, all or nothing, in sorted key order (no deadlock between callers
     * naming them in different orders). Duplicate keys count once.
     *
     * @throws IllegalArgumentException when no key is given or a key is null or blank
     */
    public RedisMultiLock getMultiLock(String... keys) {
        return getMultiLock(keys == null ? null : Arrays.asList(keys), null);
    }

    /** {@link #getMultiLock(String...)} with every lock called {@code name} in events and metrics. */
    public RedisMultiLock getMultiLock(Collection<String> keys, @Nullable String name) {
        return MultiLock.of(keys, k -> LockKeys.requireName(k, options), k -> getLock(k, name));
    }

    /** A candidate for the leadership of {@code role} that tells nobody; see {@link #leader(String, LeaderListener)}. */
    public LeaderCandidate leader(String role) {
        return leader(role, new LeaderListener() {});
    }

    /**
     * A candidate for the leadership of {@code role} (say {@code billing-consumer}) that tells {@code listener}
     * when it is granted and revoked; nothing is sent before {@link LeaderCandidate#start()}. On this client's
     * watchdog lease (a dead leader is replaced within one), over the reentrant lock {@code leader:<role>}.
     *
     * @throws IllegalArgumentException when {@code role} is null, blank or not a valid lock name
     */
    public LeaderCandidate leader(String role, LeaderListener listener) {
        return Candidate.create(
                role,
                listener,
                options,
                LockType.REENTRANT,
                named -> engine.port(ReentrantKind.LEADERSHIP, named),
                closed::get);
    }

    /**
     * This client, for a caller that times its own acquisitions and releases (as the Spring starter
     * does for {@code @DistributedLock}): the events of its locks carry {@link LockInfo#timedByCaller()},
     * so a metrics listener counts each of that caller's calls once. The same engine, holds and
     * lifecycle: closing the view closes the client.
     */
    public LockClient timedByCaller() {
        return view.timedByCaller() ? this : new LockClient(this, view.timed());
    }

    /**
     * This client, its locks' holds capped at {@code maxHold} (10 ms to 365 days) instead of
     * {@link LockClientOptions#maxHold()}, as {@link LockClientOptions.Builder#maxHold} describes; the same
     * engine, holds and lifecycle.
     */
    public LockClient withMaxHold(Duration maxHold) {
        return new LockClient(this, view.capped(LockView.requireMaxHold(maxHold)));
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

    /**
     * The locks this client holds right now (valid holds only, oldest first), thread-bound and
     * handle-owned alike; a snapshot of what the client knows, without asking Redis.
     */
    public List<HeldLock> heldLocks() {
        return engine.heldLocks();
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
     * Stops the watchdog and closes the connections; held locks are not released and expire within one
     * lease. A hold on the watchdog lease is reported lost at once (nothing renews it any more) and its
     * unlock throws {@link LockLeaseExpiredException}. Waiting threads wake at once with a {@link LockException},
     * as does every later call. Calling it again does nothing.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            engine.close();
        }
    }
}
