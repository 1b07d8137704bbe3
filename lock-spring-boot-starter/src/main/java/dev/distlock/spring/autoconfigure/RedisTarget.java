package dev.distlock.spring.autoconfigure;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.ssl.SslBundle;

/**
 * Where the locks' own Lettuce client connects ({@link SeparateRedisClient}), as Spring Boot resolved
 * it: from its Redis connection-details bean (so Testcontainers' {@code @ServiceConnection} and Docker
 * Compose reach the locks too), else from {@code spring.data.redis.*}. The same on every Boot line,
 * whose connection-details types differ in name.
 *
 * @param topology how the nodes are to be read
 * @param nodes the one server (standalone), the sentinels, or the cluster's seed nodes
 * @param database the database number (standalone and Sentinel)
 * @param sentinel the Sentinel master and the sentinels' own credentials (Sentinel only)
 * @param access the data nodes' credentials and TLS
 */
record RedisTarget(
        Topology topology,
        List<Node> nodes,
        int database,
        @Nullable Sentinel sentinel,
        Access access) {

    /** Spring Boot's topologies, in its order of precedence: Sentinel over Cluster over standalone. */
    enum Topology {
        SENTINEL,
        CLUSTER,
        STANDALONE
    }

    /** A host and port. */
    record Node(String host, int port) {
        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    /** The master's name, and the sentinels' own credentials. */
    record Sentinel(
            String master,
            @Nullable String username,
            @Nullable String password) {}

    /**
     * The data nodes' credentials and TLS.
     *
     * @param ssl whether to connect over TLS
     * @param sslBundle the TLS key and trust material, if not the JDK's defaults
     * @param source what the target was read from, for the log
     */
    record Access(
            @Nullable String username,
            @Nullable String password,
            boolean ssl,
            @Nullable SslBundle sslBundle,
            String source) {}

    static RedisTarget sentinel(List<Node> sentinels, int database, Sentinel sentinel, Access access) {
        return new RedisTarget(Topology.SENTINEL, sentinels, database, sentinel, access);
    }

    static RedisTarget cluster(List<Node> nodes, Access access) {
        return new RedisTarget(Topology.CLUSTER, nodes, 0, null, access);
    }

    static RedisTarget standalone(Node node, int database, Access access) {
        return new RedisTarget(Topology.STANDALONE, List.of(node), database, null, access);
    }

    /** Where the locks connect, for the log and error messages; never the password. */
    String describe() {
        return switch (topology) {
            case SENTINEL -> "sentinel master '" + sentinel.master() + "' via " + nodes;
            case CLUSTER -> "cluster " + nodes;
            case STANDALONE -> nodes.get(0).toString();
        };
    }
}
