package dev.distlock.core.testing;

import dev.distlock.testsupport.RedisClusterSetup;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real three-master Redis Cluster for one test class, and the Lettuce cluster clients its tests connect
 * through: started before the class's first test, every client shut down and the cluster stopped after its
 * last. Register it as a {@code static} field with {@code @RegisterExtension}.
 */
public final class ClusterClients implements BeforeAllCallback, AfterAllCallback {

    private final List<RedisClusterClient> clients = new ArrayList<>();
    private RedisClusterSetup cluster;

    @Override
    public void beforeAll(ExtensionContext context) {
        cluster = RedisClusterSetup.start();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        try {
            clients.forEach(RedisClusterClient::shutdown);
        } finally {
            clients.clear();
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    /** The running cluster. */
    public RedisClusterSetup cluster() {
        return cluster;
    }

    /** A new Lettuce cluster client seeded with every node, shut down after the class's tests. */
    public RedisClusterClient newClient() {
        RedisClusterClient client = RedisClusterClient.create(
                cluster.uris().stream().map(RedisURI::create).toList());
        clients.add(client);
        return client;
    }

    /** The class's first client: made on first use, shared by its tests. */
    public RedisClusterClient client() {
        return clients.isEmpty() ? newClient() : clients.get(0);
    }
}
