package dev.distlock.core;

import dev.distlock.testsupport.RedisClusterSetup;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The semaphore contract on a real three-master Redis Cluster, every client through a {@link RedisClusterClient}. */
@SlowTest
class ClusterSemaphoreContractTest extends SemaphoreContract {

    private static RedisClusterSetup cluster;
    private static RedisClusterClient redisCluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterSetup.start();
        redisCluster = RedisClusterClient.create(
                cluster.uris().stream().map(RedisURI::create).toList());
    }

    @AfterAll
    static void stopCluster() {
        if (redisCluster != null) {
            redisCluster.shutdown();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    LockClient open(LockClientOptions options) {
        return LockClient.create(redisCluster, options);
    }
}
