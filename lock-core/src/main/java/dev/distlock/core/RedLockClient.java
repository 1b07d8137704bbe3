package dev.distlock.core;

import dev.distlock.core.internal.leader.Candidate;
import dev.distlock.core.internal.lock.LockView;
import dev.distlock.core.internal.lock.ThreadBoundLock;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redlock.DistinctNodes;
import dev.distlock.core.internal.redlock.RedLockEngine;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Hands out RedLocks: locks held on a majority of N independent Redis masters (no replication
 * between them), so that the lock survives the loss of a minority of nodes. Use at least 3 nodes,
 * preferably an odd number (5 tolerates two failed nodes).
 *
 * <p>Each acquisition tries the same lock (same name, same owner) on every node in parallel, each
 * node bounded by a short timeout, and is granted only when a majority granted within the lease;
 * the lease left is the lease minus the time taken minus a clock-drift allowance (1% + 2 ms). A
 * failed round is released on every node and retried after a short random back-off until the wait
 * time is spent. A round that fewer than a majority of nodes answer at all is tried again in the same
 * way, until the wait ends; {@code lock()}, which waits for ever, gives up once no majority has answered
 * for one {@link LockClientOptions#operationTimeout() operation timeout}, as a LockClient's {@code lock()}
 * does, and {@code tryLock(Duration.ZERO)} after its one round. It then fails with a
 * {@link LockUnavailableException} that says how many answered. Locks held without an explicit lease are
 * renewed on every node every third of the watchdog lease, from one thread per client; when fewer
 * than a majority renew, the hold is lost ({@link LockListener#onLeaseLost}, and {@code unlock}
 * throws {@link LockLeaseExpiredException}). Re-entry is counted locally and keeps the first
 * hold's lease and fencing token.
 *
 * <p>The fencing token of a grant is the largest of the granting nodes' tokens, written back to
 * their counters before the grant is reported, so every later grant draws a larger one. Nodes
 * without persistence that restart empty should stay out for one lease before rejoining
 * ("delayed restart"): two such restarts within a lease can otherwise hand the lock out twice.
 *
 * <pre>{@code
 * try (RedLockClient redLock = RedLockClient.connect(List.of(
 *         RedisURI.create("redis://redis-a:6379"),
 *         RedisURI.create("redis://redis-b:6379"),
 *         RedisURI.create("redis://redis-c:6379")), LockClientOptions.defaults())) {
 *     RedisLock lock = redLock.getLock("nightly-report");
 *     if (lock.tryLock(Duration.ofSeconds(2))) {
 *         try {
 *             long token = lock.currentFencingToken();
 *             ...
 *         } finally {
 *             lock.unlock();
 *         }
 *     }
 * }
 * }</pre>
 */
public final class RedLockClient implements AutoCloseable {

    /** The fewest nodes a RedLock accepts. */
    public static final int MIN_NODES = 3;

    private final RedLockEngine engine;
    private final LockClientOptions options;
    private final List<LockClient> ownedNodes;
    private final List<RedisClient> ownedRedisClients;
    private final AtomicBoolean closed;
    private final LockView view;

    private RedLockClient(
            List<LockClient> nodes,
            LockClientOptions options,
            List<LockClient> ownedNodes,
            List<RedisClient> ownedRedisClients) {
        this.options = options;
        this.ownedNodes = ownedNodes;
        this.ownedRedisClients = ownedRedisClients;
        this.engine = new RedLockEngine(nodes.stream().map(LockClient::node).toList(), options);
        this.closed = new AtomicBoolean();
        this.view = new LockView(false, options.maxHold());
    }

    private RedLockClient(RedLockClient client, LockView view) {
        this.options = client.options;
        this.ownedNodes = client.ownedNodes;
        this.ownedRedisClients = client.ownedRedisClients;
        this.engine = client.engine;
        this.closed = client.closed;
        this.view = view;
    }

    /** This client, for a caller that times its own calls; see {@link LockClient#timedByCaller()}. */
    public RedLockClient timedByCaller() {
        return view.timedByCaller() ? this : new RedLockClient(this, view.timed());
    }

    /** This client, its holds capped at {@code maxHold}; see {@link LockClient#withMaxHold(Duration)}. */
    public RedLockClient withMaxHold(Duration maxHold) {
        return new RedLockClient(this, view.capped(LockView.requireMaxHold(maxHold)));
    }

    /**
     * A RedLock over existing clients, one per Redis master, with default options. The nodes are
     * not closed by {@link #close()}; each node uses its own key prefix and fencing counter TTL.
     *
     * @throws IllegalArgumentException with fewer than {@value #MIN_NODES} nodes
     */
    public static RedLockClient of(LockClient... nodes) {
        Objects.requireNonNull(nodes, "nodes must not be null");
        return of(Arrays.asList(nodes), LockClientOptions.defaults());
    }

    /**
     * A RedLock over existing clients, one per independent Redis master. From {@code options} it
     * takes the watchdog lease and the listeners; the nodes keep their own key prefix and fencing
     * counter TTL, and are not closed by {@link #close()}. Configure node clients with
     * {@code DisconnectedBehavior.REJECT_COMMANDS} so that a down node answers at once instead of
     * after the per-node timeout (and queues nothing).
     *
     * @throws IllegalArgumentException with fewer than {@value #MIN_NODES} nodes, or two nodes that one
     *     Redis server answers for (compared by the run id each reports, among the nodes that answer)
     */
    public static RedLockClient of(List<LockClient> nodes, LockClientOptions options) {
        Objects.requireNonNull(nodes, "nodes must not be null");
        Objects.requireNonNull(options, "options must not be null");
        requireEnoughNodes(nodes.size());
        nodes.forEach(n -> Objects.requireNonNull(n, "nodes must not contain null"));
        if (nodes.stream().distinct().count() != nodes.size()) {
            throw new IllegalArgumentException(
                    "RedLock nodes must be distinct clients, one per independent Redis master");
        }
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= nodes.size(); i++) {
            names.add("node " + i);
        }
        DistinctNodes.requireDistinctProcesses(
                nodes.stream().map(LockClient::node).toList(), timeoutOf(nodes), names);
        return new RedLockClient(nodes, options, List.of(), List.of());
    }

    /**
     * Connects to each of {@code uris}, independent Redis masters, and owns (and closes) the
     * connections. Every node must be reachable now; later, a minority may fail. Commands to a
     * disconnected node are rejected at once rather than queued.
     *
     * @throws IllegalArgumentException with fewer than {@value #MIN_NODES} URIs, or a server listed twice
     *     (by its address, or by the run id it reports when reached under another address or database)
     * @throws LockException when a node cannot be reached
     */
    public static RedLockClient connect(List<RedisURI> uris, LockClientOptions options) {
        Objects.requireNonNull(uris, "uris must not be null");
        Objects.requireNonNull(options, "options must not be null");
        requireEnoughNodes(uris.size());
        DistinctNodes.requireDistinctServers(uris);
        List<RedisClient> redisClients = new ArrayList<>();
        List<LockClient> nodes = new ArrayList<>();
        try {
            for (RedisURI uri : uris) {
                RedisClient redis = RedisClient.create(Objects.requireNonNull(uri, "uris must not contain null"));
                redisClients.add(redis);
                redis.setOptions(ClientOptions.builder()
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .build());
                nodes.add(LockClient.create(redis, options));
            }
            DistinctNodes.requireDistinctProcesses(
                    nodes.stream().map(LockClient::node).toList(),
                    timeoutOf(nodes),
                    uris.stream().map(DistinctNodes::server).toList());
        } catch (RuntimeException e) {
            nodes.forEach(LockClient::close);
            redisClients.forEach(ClientShutdown::shutdown);
            throw e;
        }
        return new RedLockClient(nodes, options, List.copyOf(nodes), List.copyOf(redisClients));
    }

    /** The longest operation timeout of {@code nodes}: asked all at once, the check waits that long at most. */
    private static long timeoutOf(List<LockClient> nodes) {
        return nodes.stream()
                .mapToLong(n -> n.options().operationTimeout().toNanos())
                .max()
                .orElse(0);
    }

    private static void requireEnoughNodes(int count) {
        if (count < MIN_NODES) {
            throw new IllegalArgumentException(
                    "RedLock needs at least " + MIN_NODES + " independent Redis masters, got " + count
                            + ": add nodes (an odd number such as 3 or 5), or use a single LockClient when one Redis is enough");
        }
    }

    /** A reentrant RedLock on {@code key}; cheap, no Redis call. */
    public RedisLock getLock(String key) {
        return getLock(key, key);
    }

    /** A reentrant RedLock on {@code key}, called {@code name} in events and metrics (see {@link LockClient#getLock(String, String)}). */
    public RedisLock getLock(String key, @Nullable String name) {
        LockKeys.requireName(key, options);
        LockInfo info = view.info(key, name, LockType.REDLOCK);
        return new ThreadBoundLock<>(info, engine.port(info), "RedLock");
    }

    /** A candidate for the leadership of {@code role} that tells nobody; see {@link #leader(String, LeaderListener)}. */
    public LeaderCandidate leader(String role) {
        return leader(role, new LeaderListener() {});
    }

    /**
     * A candidate for the leadership of {@code role} held as a RedLock on a majority of the nodes; see
     * {@link LockClient#leader(String, LeaderListener)}. Its term is the RedLock's fencing token.
     *
     * @throws IllegalArgumentException when {@code role} is null, blank or not a valid lock name
     */
    public LeaderCandidate leader(String role, LeaderListener listener) {
        return Candidate.create(role, listener, options, LockType.REDLOCK, engine::port, closed::get);
    }

    /** Unique id of this client; part of the owner id it writes to every node. */
    public String clientId() {
        return engine.clientId;
    }

    /** How many nodes the lock spans. */
    public int nodeCount() {
        return engine.size();
    }

    /** How many nodes must grant a lock: a majority, {@code nodeCount() / 2 + 1}. */
    public int quorum() {
        return engine.quorum;
    }

    /** The options this client was built with. */
    public LockClientOptions options() {
        return options;
    }

    /** The RedLocks this client holds right now (valid holds only, oldest first); see {@link LockClient#heldLocks()}. */
    public List<HeldLock> heldLocks() {
        return engine.heldLocks();
    }

    /** How many RedLocks this client holds right now (valid holds only). */
    public int activeHolds() {
        return engine.activeHolds();
    }

    /**
     * Stops the watchdog and closes the node connections this client opened; held locks are not
     * released and expire within one lease. A hold on the watchdog lease is reported lost at once
     * (listeners, WARN, interrupt when chosen), and its unlock throws {@link LockLeaseExpiredException}.
     * Calling it again does nothing.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            engine.close();
            ownedNodes.forEach(LockClient::close);
            ownedRedisClients.forEach(ClientShutdown::shutdown);
        }
    }
}
