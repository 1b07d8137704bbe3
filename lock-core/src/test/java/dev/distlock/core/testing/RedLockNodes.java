package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedLockClient;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;

/**
 * Five independent Redis servers for the RedLock tests, and the clients to close after each test.
 * Servers stopped by a test are restarted (empty) after it.
 */
public final class RedLockNodes implements AutoCloseable {

    public final List<RedisServer> servers = new ArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final List<RedisClient> redisClients = new ArrayList<>();

    public RedLockNodes(RedisExtension redis) {
        servers.add(redis.server());
        while (servers.size() < 5) {
            servers.add(redis.startAnother());
        }
    }

    public List<RedisURI> uris(int n) {
        return servers.subList(0, n).stream().map(s -> RedisURI.create(s.uri())).toList();
    }

    /** A RedLock over the first {@code n} servers, connected by {@link RedLockClient#connect}. */
    public RedLockClient connect(int n, LockClientOptions options) {
        return closeLater(RedLockClient.connect(uris(n), options));
    }

    public RedLockClient connect(int n) {
        return connect(n, LockClientOptions.defaults());
    }

    /**
     * One LockClient per server, built by the test: commands to a down node fail at once
     * (REJECT_COMMANDS) or, with {@code rejectWhenDown} false, wait in Lettuce's queue until the
     * RedLock's per-node timeout.
     */
    public List<LockClient> nodeClients(int n, boolean rejectWhenDown) {
        List<LockClient> clients = new ArrayList<>();
        for (RedisServer server : servers.subList(0, n)) {
            RedisClient redis = RedisClient.create(RedisURI.create(server.uri()));
            if (rejectWhenDown) {
                redis.setOptions(ClientOptions.builder()
                        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                        .build());
            }
            redisClients.add(redis);
            clients.add(closeLater(LockClient.create(redis, LockClientOptions.defaults())));
        }
        return clients;
    }

    public <T extends AutoCloseable> T closeLater(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    /** Whether server {@code i} has the lock's key. */
    public boolean hasKey(int i, String lockName) {
        return !server(i).command("EXISTS", "lock:{" + lockName + "}").equals(":0");
    }

    public RedisServer server(int i) {
        return servers.get(i);
    }

    @Override
    public void close() throws Exception {
        try {
            for (int i = toClose.size() - 1; i >= 0; i--) {
                toClose.get(i).close();
            }
            toClose.clear();
            // bounded: Lettuce's shutdown() once waited five minutes for a connection reconnecting to a killed node
            redisClients.forEach(ClientShutdown::shutdown);
            redisClients.clear();
        } finally {
            // the next test finds every node up, whatever the clean-up above ran into
            for (RedisServer server : servers) {
                if (!server.isRunning()) {
                    server.restart();
                }
            }
        }
    }
}
