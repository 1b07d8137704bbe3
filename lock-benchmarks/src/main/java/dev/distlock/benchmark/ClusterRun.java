package dev.distlock.benchmark;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
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

/**
 * Scenario 11 on a Redis Cluster of three masters (no replicas: two cores do not carry six servers),
 * started once for the whole benchmark: two distlock clients, the workers split between them, each op on
 * a key picked at random from {@code threads} keys per master, so locks are contended across clients and
 * their wake-ups are spread over every shard. "distlock" publishes them with sharded pub/sub (Redis 7),
 * "distlock, PUBLISH" with the broadcast PUBLISH ({@code -Ddistlock.sharded-pubsub=false} as its clients
 * connect). Redis counters are of all masters together, and the pub/sub messages node by node.
 */
final class ClusterRun implements AutoCloseable {

    private static final String PLAIN_PUBLISH = "distlock.sharded-pubsub";

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
        List<LockClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                clients.add(open(lettuce, library == Library.DISTLOCK_PUBLISH));
            }
            Occupancy occupancy = Occupancy.local(keys.size());
            List<Occupancy.Slot> slots = keys.stream().map(occupancy::slot).toList();
            List<Lock> workers = new ArrayList<>();
            for (int t = 0; t < config.threads(); t++) {
                LockClient client = clients.get(t % clients.size());
                Workload.prime(client.getLock("bench-prime-" + t));
                List<Lock> locks =
                        keys.stream().map(k -> (Lock) client.getLock(k)).toList();
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
            clients.forEach(LockClient::close);
            lettuce.shutdown();
        }
    }

    /** A distlock client on the cluster; with {@code plain}, one that publishes wake-ups with PUBLISH. */
    private static LockClient open(RedisClusterClient lettuce, boolean plain) {
        if (!plain) {
            return LockClient.create(lettuce, LockClientOptions.defaults());
        }
        System.setProperty(PLAIN_PUBLISH, "false"); // read as the client connects
        try {
            return LockClient.create(lettuce, LockClientOptions.defaults());
        } finally {
            System.clearProperty(PLAIN_PUBLISH);
        }
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
