package dev.distlock.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Sentinel-managed Redis on free loopback ports: one master, one replica and three sentinels
 * (quorum 2) that fail over about 1 s after the master stops answering. {@link #cutReplication()} makes
 * the replica fall behind before a failover. Every process is killed
 * and its temp directory deleted on {@link #close()} (and at JVM exit at the latest).
 *
 * <pre>{@code
 * try (RedisSentinelSetup sentinel = RedisSentinelSetup.start()) {
 *     RedisURI uri = RedisURI.Builder.sentinel("127.0.0.1", sentinel.sentinelPorts().get(0))
 *             .withSentinelMasterId(sentinel.masterName()).build();
 *     ...
 *     sentinel.killMaster();
 *     sentinel.awaitFailover(Duration.ofSeconds(30));
 * }
 * }</pre>
 */
public final class RedisSentinelSetup implements AutoCloseable {

    /** The name the sentinels monitor the master under. */
    public static final String MASTER_NAME = "mymaster";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(20);

    private final List<RedisServer> dataNodes = new ArrayList<>();
    private final List<RedisServer> sentinels = new ArrayList<>();

    private RedisSentinelSetup() {}

    /** Starts master, replica and three sentinels, and returns once the sentinels see the replica and each other. */
    public static RedisSentinelSetup start() {
        RedisSentinelSetup setup = new RedisSentinelSetup();
        try {
            setup.launch();
            return setup;
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
    }

    private void launch() {
        RedisServer master = RedisServer.start();
        dataNodes.add(master);
        RedisServer replica = RedisServer.start("--replicaof", master.host(), String.valueOf(master.port()));
        dataNodes.add(replica);
        Topologies.await(
                "replica in sync",
                READY_TIMEOUT,
                () -> "up"
                        .equals(Topologies.info(replica.query("INFO", "replication"))
                                .get("master_link_status")),
                () -> replica.query("INFO", "replication"));
        List<String> conf = List.of(
                "sentinel resolve-hostnames yes",
                "sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2",
                "sentinel down-after-milliseconds " + MASTER_NAME + " 1000",
                "sentinel failover-timeout " + MASTER_NAME + " 3000",
                "sentinel parallel-syncs " + MASTER_NAME + " 1");
        for (int i = 0; i < 3; i++) {
            sentinels.add(RedisServer.startSentinel(conf));
        }
        for (RedisServer s : sentinels) {
            Topologies.await(
                    "sentinel " + s.port() + " seeing the replica and the other sentinels",
                    READY_TIMEOUT,
                    () -> {
                        Map<String, String> m = Topologies.pairs(s.query("SENTINEL", "MASTER", MASTER_NAME));
                        return "1".equals(m.get("num-slaves")) && "2".equals(m.get("num-other-sentinels"));
                    },
                    () -> s.query("SENTINEL", "MASTER", MASTER_NAME));
        }
    }

    public String masterName() {
        return MASTER_NAME;
    }

    /** Ports of the three sentinels. */
    public List<Integer> sentinelPorts() {
        return sentinels.stream().map(RedisServer::port).toList();
    }

    /** {@code host:port} of the sentinels, comma-separated, as spring.data.redis.sentinel.nodes takes them. */
    public String sentinelNodes() {
        return sentinels.stream().map(s -> s.host() + ":" + s.port()).collect(Collectors.joining(","));
    }

    /** The sentinels themselves. */
    public List<RedisServer> sentinels() {
        return List.copyOf(sentinels);
    }

    /** The port the sentinels currently report as the master's. */
    public int masterPort() {
        String[] addr = sentinels
                .get(0)
                .query("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)
                .split("\n");
        return Integer.parseInt(addr[1]);
    }

    /** The data node currently reported as master. */
    public RedisServer master() {
        int port = masterPort();
        return dataNodes.stream()
                .filter(n -> n.port() == port)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("No data node on master port " + port));
    }

    /** The data node currently not reported as master. */
    public RedisServer replica() {
        int port = masterPort();
        return dataNodes.stream()
                .filter(n -> n.port() != port)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("No replica besides master port " + port));
    }

    /**
     * Kills the current master with SIGKILL, like a crash; the sentinels then promote the replica.
     *
     * @return the port of the killed master
     */
    public int killMaster() {
        RedisServer master = master();
        master.stop();
        return master.port();
    }

    /** Waits until every sentinel reports a master other than {@code oldMasterPort} and that node acts as master. */
    public RedisServer awaitFailover(int oldMasterPort, Duration timeout) {
        Topologies.await(
                "failover away from port " + oldMasterPort,
                timeout,
                () -> {
                    for (RedisServer s : sentinels) {
                        String[] addr = s.query("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)
                                .split("\n");
                        if (addr.length < 2 || Integer.parseInt(addr[1]) == oldMasterPort) {
                            return false;
                        }
                    }
                    return "master"
                            .equals(Topologies.info(master().query("INFO", "replication"))
                                    .get("role"));
                },
                () -> sentinels.stream()
                        .map(s -> s.port() + ": " + s.query("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME))
                        .collect(Collectors.joining("; ")));
        return master();
    }

    /**
     * Cuts the replica off the master's replication stream and keeps it off, so that it misses every
     * write from now on, as a replica far behind would: the replica is given a wrong master password
     * and its link is killed, so its re-sync fails until it is promoted. It still answers clients and
     * sentinels, so Sentinel promotes it as usual when the master dies. Returns once the replica
     * reports its link down.
     */
    public void cutReplication() {
        RedisServer replica = replica();
        RedisServer master = master();
        String reply = replica.query("CONFIG", "SET", "masterauth", "not-the-master-password");
        if (!reply.startsWith("+OK")) {
            throw new IllegalStateException(
                    "CONFIG SET masterauth on the replica (port " + replica.port() + ") failed: " + reply);
        }
        // AUTH with a password is refused by a master without one, so the replica's re-sync handshake fails
        master.query("CLIENT", "KILL", "TYPE", "replica");
        Topologies.await(
                "replica link down",
                READY_TIMEOUT,
                () -> "down"
                        .equals(Topologies.info(replica.query("INFO", "replication"))
                                .get("master_link_status")),
                () -> replica.query("INFO", "replication"));
    }

    /** How many bytes of the master's replication stream the replica has not applied (0 when in sync). */
    public long replicationLag() {
        long master = Long.parseLong(
                Topologies.info(master().query("INFO", "replication")).get("master_repl_offset"));
        long replica = Long.parseLong(
                Topologies.info(replica().query("INFO", "replication")).get("master_repl_offset"));
        return master - replica;
    }

    /** Kills every process and deletes their directories. */
    @Override
    public void close() {
        sentinels.forEach(RedisServer::close);
        dataNodes.forEach(RedisServer::close);
    }
}
