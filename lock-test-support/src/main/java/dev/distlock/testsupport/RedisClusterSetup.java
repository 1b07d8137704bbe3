package dev.distlock.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of three masters (no replicas) on free loopback ports, the 16384 slots split
 * evenly. {@link #start()} returns once every node reports {@code cluster_state:ok}; {@link #close()}
 * kills every node and deletes its directory (and its {@code nodes.conf}). {@link #migrateSlot} reshards
 * one slot between masters, as {@code redis-cli --cluster reshard} does, for tests of clients under resharding.
 *
 * <pre>{@code
 * try (RedisClusterSetup cluster = RedisClusterSetup.start()) {
 *     RedisClusterClient client = RedisClusterClient.create(cluster.uris().stream().map(RedisURI::create).toList());
 * }
 * }</pre>
 */
public final class RedisClusterSetup implements AutoCloseable {

    /** Number of hash slots in a Redis Cluster. */
    public static final int SLOTS = 16384;

    private static final int MASTERS = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

    private final List<RedisServer> nodes = new ArrayList<>();

    private RedisClusterSetup() {}

    /** Starts three cluster-enabled masters, assigns the slots, joins them and waits for {@code cluster_state:ok}. */
    public static RedisClusterSetup start() {
        RedisClusterSetup setup = new RedisClusterSetup();
        try {
            setup.launch();
            return setup;
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
    }

    private void launch() {
        for (int i = 0; i < MASTERS; i++) {
            // relative to the node's own --dir, so every node has its own file
            nodes.add(RedisServer.start(
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    "nodes.conf",
                    "--cluster-node-timeout",
                    "2000"));
        }
        for (int i = 0; i < MASTERS; i++) {
            RedisServer node = nodes.get(i);
            int from = i * SLOTS / MASTERS;
            int to = (i + 1) * SLOTS / MASTERS; // exclusive
            String[] args = new String[2 + to - from];
            args[0] = "CLUSTER";
            args[1] = "ADDSLOTS"; // ADDSLOTSRANGE needs Redis 7; the bundled fallback is 6.2
            for (int slot = from; slot < to; slot++) {
                args[2 + slot - from] = String.valueOf(slot);
            }
            expectOk(node, node.query(args));
            // distinct epochs up front, so the nodes need not resolve collisions before agreeing
            expectOk(node, node.query("CLUSTER", "SET-CONFIG-EPOCH", String.valueOf(i + 1)));
        }
        RedisServer first = nodes.get(0);
        for (RedisServer other : nodes.subList(1, nodes.size())) {
            expectOk(first, first.query("CLUSTER", "MEET", other.host(), String.valueOf(other.port())));
        }
        for (RedisServer node : nodes) {
            Topologies.await(
                    "cluster_state:ok on port " + node.port(),
                    READY_TIMEOUT,
                    () -> {
                        Map<String, String> info = Topologies.info(node.query("CLUSTER", "INFO"));
                        return "ok".equals(info.get("cluster_state"))
                                && String.valueOf(MASTERS).equals(info.get("cluster_known_nodes"))
                                && String.valueOf(SLOTS).equals(info.get("cluster_slots_ok"));
                    },
                    () -> node.query("CLUSTER", "INFO"));
        }
    }

    private static void expectOk(RedisServer node, String reply) {
        if (!reply.startsWith("+OK")) {
            throw new IllegalStateException("Cluster set-up on port " + node.port() + " failed: " + reply);
        }
    }

    /** The master nodes. */
    public List<RedisServer> nodes() {
        return List.copyOf(nodes);
    }

    /** {@code redis://127.0.0.1:<port>} of every node. */
    public List<String> uris() {
        return nodes.stream().map(RedisServer::uri).toList();
    }

    /** {@code host:port} of the nodes, comma-separated, as spring.data.redis.cluster.nodes takes them. */
    public String clusterNodes() {
        return nodes.stream().map(n -> n.host() + ":" + n.port()).collect(Collectors.joining(","));
    }

    /** The hash slot of {@code key}, as the cluster computes it. */
    public int slotOf(String key) {
        return Integer.parseInt(nodes.get(0).query("CLUSTER", "KEYSLOT", key).substring(1));
    }

    /** The node serving {@code key}'s slot now (as the first node sees the cluster, so also after {@link #migrateSlot}). */
    public RedisServer nodeFor(String key) {
        return ownerOf(slotOf(key));
    }

    /** The master that owns {@code slot} now, as the first node's {@code CLUSTER NODES} reports it. */
    public RedisServer ownerOf(int slot) {
        for (String line : nodes.get(0).query("CLUSTER", "NODES").split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 9) {
                continue; // a node without slots
            }
            int port = Integer.parseInt(fields[1].substring(fields[1].lastIndexOf(':') + 1, fields[1].indexOf('@')));
            for (int i = 8; i < fields.length; i++) {
                if (fields[i].startsWith("[")) {
                    continue; // an open migration ([slot->-id] / [slot-<-id]), not ownership
                }
                String[] range = fields[i].split("-");
                int from = Integer.parseInt(range[0]);
                int to = range.length > 1 ? Integer.parseInt(range[1]) : from;
                if (slot >= from && slot <= to) {
                    return nodes.stream()
                            .filter(n -> n.port() == port)
                            .findFirst()
                            .orElseThrow(
                                    () -> new IllegalStateException("Slot " + slot + " owned by unknown port " + port));
                }
            }
        }
        throw new IllegalStateException(
                "No node owns slot " + slot + ": " + nodes.get(0).query("CLUSTER", "NODES"));
    }

    /** What one {@link #migrateSlot} moved; {@code replacedKeys} are the keys of batches that met BUSYKEY. */
    public record SlotMigration(int slot, RedisServer from, RedisServer to, int keysMoved, List<String> replacedKeys) {}

    /** Moves {@code slot} and its keys to {@code target} in batches of 10, as {@code redis-cli --cluster reshard} does. */
    public SlotMigration migrateSlot(int slot, RedisServer target) {
        return migrateSlot(slot, target, 10, Duration.ZERO);
    }

    /**
     * Moves {@code slot} to {@code target} the way {@code redis-cli --cluster reshard} does (see
     * {@link SlotMove}), its keys in batches of {@code batchSize}, {@code betweenBatches} apart, so that
     * clients meet the slot half moved: ASK redirects, TRYAGAIN for keys split between the nodes.
     */
    public SlotMigration migrateSlot(int slot, RedisServer target, int batchSize, Duration betweenBatches) {
        return beginMigration(slot, target)
                .moveRemainingKeys(batchSize, betweenBatches)
                .finish();
    }

    /** Opens the migration of {@code slot} from its owner to {@code target}, for a test to move its keys step by step. */
    public SlotMove beginMigration(int slot, RedisServer target) {
        return new SlotMove(slot, ownerOf(slot), target, nodes);
    }

    /** Kills every node and deletes their directories. */
    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }
}
