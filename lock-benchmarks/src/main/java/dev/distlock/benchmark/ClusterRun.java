package dev.distlock.benchmark;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.PubSubMode;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.testsupport.RedisClusterSetup;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * Scenario 11 on a Redis Cluster of three masters (no replicas: two cores do not carry six servers),
 * started once for the whole benchmark: two distlock clients, the workers split between them, each op on
 * a key picked at random from {@code threads} keys per master, so locks are contended across clients and
 * their wake-ups are spread over every shard. "distlock" publishes them with sharded pub/sub (Redis 7),
 * "distlock, PUBLISH" with the broadcast PUBLISH ({@code PubSubMode.PLAIN} in its clients' options
 * connect); the peers run on the cluster with their defaults. Redis counters are of all masters together,
 * and the pub/sub messages node by node.
 */
final class ClusterRun implements AutoCloseable {

    private final RedisClusterSetup cluster;
    private final List<RedisClient> adminClients = new ArrayList<>();
    private final List<StatefulRedisConnection<String, String>> adminConnections = new ArrayList<>();
    private final List<RedisCommands<String, String>> admins = new ArrayList<>();

    private ClusterRun(RedisClusterSetup cluster) {
        this.cluster = cluster;
        for (RedisServer node : cluster.nodes()) {
            RedisClient c = RedisClient.create(RedisURI.create(node.host(), node.port()));
            adminClients.add(c);
            StatefulRedisConnection<String, String> connection = c.connect();
            adminConnections.add(connection);
            admins.add(connection.sync());
        }
    }

    static ClusterRun start() {
        RedisClusterSetup cluster = RedisClusterSetup.start();
        try {
            return new ClusterRun(cluster);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Masters of the cluster, in the order of the per-node figures. */
    int masters() {
        return admins.size();
    }

    RunResult run(BenchmarkConfig config, Library library, Duration warmup) throws InterruptedException {
        admins.forEach(RedisCommands::flushall);
        List<String> keys = keysOnEveryMaster(config.threads());
        RedisClusterClient lettuce = RedisClusterClient.create(
                cluster.uris().stream().map(RedisURI::create).toList());
        List<LockProvider> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                clients.add(open(library, lettuce));
            }
            Occupancy occupancy = Occupancy.local(keys.size());
            List<Occupancy.Slot> slots = keys.stream().map(occupancy::slot).toList();
            List<Lock> workers = new ArrayList<>();
            for (int t = 0; t < config.threads(); t++) {
                LockProvider client = clients.get(t % clients.size());
                Workload.prime(client.lock("bench-prime-" + t));
                List<Lock> locks = keys.stream().map(client::lock).toList();
                workers.add(new KeyRotation(locks, slots));
            }
            ClusterCounters counters = new ClusterCounters(admins);
            // each worker's slot comes with the key its rotation picks; the list only has one per worker
            List<Occupancy.Slot> unused = Collections.nCopies(workers.size(), slots.get(0));
            Outcome o = Workload.threads(workers, unused, null, warmup, config.measure(), counters);
            return RunResult.of(
                            Scenario.CLUSTER_CONTENDED,
                            library,
                            o,
                            List.of(),
                            counters.before(),
                            counters.after(),
                            null)
                    .withCluster(counters.messages());
        } finally {
            clients.forEach(LockProvider::close);
            ClientShutdown.shutdown(lettuce);
        }
    }

    /** One client of {@code library} on the cluster, each at its defaults as in the other scenarios. */
    private LockProvider open(Library library, RedisClusterClient lettuce) {
        List<String> uris = cluster.uris();
        return switch (library) {
            case DISTLOCK -> distlock(lettuce, false);
            case DISTLOCK_PUBLISH -> distlock(lettuce, true);
            case REDISSON -> new RedissonProvider(uris, false, Library.DEFAULT_LEASE);
            case REDISSON_EPOLL -> new RedissonProvider(uris, true, Library.DEFAULT_LEASE);
            case SPRING_SPIN -> new SpringProvider(hostPorts(), RedisLockType.SPIN_LOCK);
            case SPRING_PUB_SUB -> new SpringProvider(hostPorts(), RedisLockType.PUB_SUB_LOCK);
            case RAW_FLOOR, RAW_FLOOR_AGAIN, RAW_SCRIPTS ->
                throw new IllegalArgumentException(library.label + " is not a lock: not on the cluster");
        };
    }

    private List<String> hostPorts() {
        return cluster.nodes().stream().map(n -> n.host() + ":" + n.port()).toList();
    }

    /** A distlock client on the cluster; with {@code plain}, one that publishes wake-ups with PUBLISH. */
    private static LockProvider distlock(RedisClusterClient lettuce, boolean plain) {
        LockClient client = LockClient.create(
                lettuce,
                LockClientOptions.builder()
                        .pubSub(plain ? PubSubMode.PLAIN : PubSubMode.AUTO)
                        .build());
        return new LockProvider() {
            @Override
            public Lock lock(String key) {
                return client.getLock(key);
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }

    /** {@code perMaster} lock names whose slots each master owns, so wake-ups come from every shard. */
    private List<String> keysOnEveryMaster(int perMaster) {
        Map<Integer, List<String>> byPort = new HashMap<>();
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < perMaster * masters(); i++) {
            String name = "bench-cluster-" + i;
            // distlock's key is <prefix>{name}: the name is the hash tag
            int port = cluster.ownerOf(SlotHash.getSlot(name)).port();
            List<String> mine = byPort.computeIfAbsent(port, p -> new ArrayList<>());
            if (mine.size() < perMaster) {
                mine.add(name);
                keys.add(name);
            }
        }
        return keys;
    }

    @Override
    public void close() {
        adminConnections.forEach(StatefulRedisConnection::close);
        adminClients.forEach(RedisClient::shutdown);
        cluster.close();
    }
}
