package dev.distlock.core.internal.redis;

import dev.distlock.core.LockException;
import dev.distlock.core.PubSubMode;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

/**
 * Opens a client's {@link RedisConnections} on a Lettuce client: the command, renewal and pub/sub
 * connections, and how wake-ups travel on them; tries a handshake cut short again, and names what to check
 * when Redis cannot be reached.
 */
final class Connecting {

    private Connecting() {}

    /**
     * Opens the connections of a standalone/Sentinel {@link RedisClient} or a {@link RedisClusterClient}.
     *
     * @param owned whether closing this also shuts the client down
     * @param mode how wake-ups travel; a {@link PubSubMode#SHARDED} the server cannot serve fails with an
     *     {@link IllegalArgumentException} that says so
     */
    static RedisConnections open(AbstractRedisClient client, boolean owned, PubSubMode mode) {
        if (!(client instanceof RedisClusterClient) && !(client instanceof RedisClient)) {
            throw new IllegalArgumentException(
                    "Unsupported Lettuce client " + client.getClass().getName()
                            + ": use a RedisClient (standalone or Sentinel) or a RedisClusterClient");
        }
        for (int attempt = 1; ; attempt++) {
            try {
                return connect(client, owned, mode);
            } catch (IllegalArgumentException e) { // an option the server cannot serve: it says what to fix
                if (owned) {
                    ClientShutdown.shutdown(client);
                }
                throw e;
            } catch (RuntimeException e) {
                // Lettuce reports a socket closed in the middle of its handshake (as a refused login may
                // race it) as "RedisHandshakeHandler not registered" or "Connection closed prematurely": try
                // again for the server's real answer.
                if (attempt == 5 || !handshakeRace(e)) {
                    if (owned) {
                        ClientShutdown.shutdown(client);
                    }
                    throw new LockException(
                            "Cannot connect to Redis for distributed locks: " + e.getMessage()
                                    + " (check host, port, password/ACL user and TLS settings)",
                            e);
                }
            }
        }
    }

    /** Whether {@code e} or one of its causes is Lettuce's report of a handshake cut short. */
    private static boolean handshakeRace(RuntimeException e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (message.contains("HandshakeHandler") || message.contains("closed prematurely")) {
                return true;
            }
        }
        return false;
    }

    private static RedisConnections connect(AbstractRedisClient client, boolean owned, PubSubMode mode) {
        if (client instanceof RedisClusterClient cluster) {
            StatefulRedisClusterConnection<String, String> c = cluster.connect(ExactUtf8Codec.INSTANCE);
            StatefulRedisClusterConnection<String, String> r = null;
            try {
                boolean sharded = ShardedPubSub.choose(mode, c);
                r = cluster.connect(ExactUtf8Codec.INSTANCE);
                return new RedisConnections(
                        c,
                        r,
                        r.async(),
                        c.async(),
                        c.async(),
                        null,
                        cluster.connectPubSub(ExactUtf8Codec.INSTANCE),
                        sharded,
                        client,
                        owned);
            } catch (RuntimeException e) {
                closeAll(c, r);
                throw e;
            }
        }
        RedisClient standalone = (RedisClient) client;
        StatefulRedisConnection<String, String> c = standalone.connect(ExactUtf8Codec.INSTANCE);
        StatefulRedisConnection<String, String> r = null;
        try {
            boolean sharded = ShardedPubSub.choose(mode, c);
            r = standalone.connect(ExactUtf8Codec.INSTANCE);
            return new RedisConnections(
                    c,
                    r,
                    r.async(),
                    c.async(),
                    c.async(),
                    c.async(),
                    standalone.connectPubSub(ExactUtf8Codec.INSTANCE),
                    sharded,
                    client,
                    owned);
        } catch (RuntimeException e) {
            closeAll(c, r);
            throw e;
        }
    }

    private static void closeAll(StatefulConnection<?, ?>... connections) {
        for (StatefulConnection<?, ?> connection : connections) {
            if (connection != null) {
                connection.close();
            }
        }
    }
}
