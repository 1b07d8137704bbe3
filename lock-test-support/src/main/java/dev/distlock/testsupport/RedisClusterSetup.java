package dev.distlock.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Redis Cluster of three masters (no replicas) on free loopback ports, the 16384 slots split
 * evenly. {@link #start()} returns once every node reports {@code cluster_state:ok}; {@link #close()}
 * kills every node and deletes its directory (and its {@code nodes.conf}).
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

    private RedisClusterSetup() {
    }

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
            nodes.add(RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                    "--cluster-node-timeout", "2000"));
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
            Topologies.await("cluster_state:ok on port " + node.port(), READY_TIMEOUT, () -> {
                Map<String, String> info = Topologies.info(node.query("CLUSTER", "INFO"));
                return "ok".equals(info.get("cluster_state")) && String.valueOf(MASTERS).equals(info.get("cluster_known_nodes"))
                        && String.valueOf(SLOTS).equals(info.get("cluster_slots_ok"));
            }, () -> node.query("CLUSTER", "INFO"));
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

    /** The node serving {@code key}'s slot. */
    public RedisServer nodeFor(String key) {
        int slot = slotOf(key);
        for (int i = MASTERS - 1; i > 0; i--) {
            if (slot >= i * SLOTS / MASTERS) {
                return nodes.get(i);
            }
        }
        return nodes.get(0);
    }

    /** Kills every node and deletes their directories. */
    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }
}
