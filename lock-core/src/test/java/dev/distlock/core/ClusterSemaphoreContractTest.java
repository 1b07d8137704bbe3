package dev.distlock.core;

import dev.distlock.core.testing.ClusterClients;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The semaphore contract on a real three-master Redis Cluster, every client through a {@link RedisClusterClient}. */
@SlowTest
class ClusterSemaphoreContractTest extends SemaphoreContract {

    @RegisterExtension
    static final ClusterClients cluster = new ClusterClients();

    @Override
    LockClient open(LockClientOptions options) {
        return LockClient.create(cluster.client(), options);
    }
}
