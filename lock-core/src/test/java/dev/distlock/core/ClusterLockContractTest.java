package dev.distlock.core;

import dev.distlock.core.testing.ClusterClients;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The shared lock contract (lock-test-support) on a real three-master Redis Cluster, every client through a {@link RedisClusterClient}. */
@SlowTest
class ClusterLockContractTest extends LockContractTest {

    @RegisterExtension
    static final ClusterClients cluster = new ClusterClients();

    @Override
    LockClient open(LockClientOptions options) {
        // every LockClient opens its own command and pub/sub connections on the shared Lettuce client
        return LockClient.create(cluster.client(), options);
    }
}
