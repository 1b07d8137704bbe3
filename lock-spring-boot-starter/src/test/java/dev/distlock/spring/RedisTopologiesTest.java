package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.RedisClusterSetup;
import dev.distlock.testsupport.RedisSentinelSetup;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The starter on Sentinel and Cluster, configured only through {@code spring.data.redis.sentinel.*}
 * or {@code spring.data.redis.cluster.*}: the lock client rides on whatever Lettuce client Spring Boot
 * built for that topology.
 */
@SlowTest
class RedisTopologiesTest {

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withUserConfiguration(JobConfig.class)
                .withPropertyValues("distlock.wait-time=2s");
    }

    @Test
    void sentinelConfiguredApplicationKeepsLockingAfterTheMasterIsKilled() {
        try (RedisSentinelSetup sentinel = RedisSentinelSetup.start()) {
            runner().withPropertyValues(
                            "spring.data.redis.sentinel.master=" + sentinel.masterName(),
                            "spring.data.redis.sentinel.nodes=" + sentinel.sentinelNodes(),
                            "spring.data.redis.timeout=5s")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context.getBean(LettuceConnectionFactory.class)
                                        .getNativeClient())
                                .isInstanceOf(RedisClient.class);
                        Job job = context.getBean(Job.class);
                        LockClient client = context.getBean(LockClient.class);
                        assertThat(job.run("before"))
                                .as("the annotation's lock is held during the call")
                                .isTrue();
                        int oldMaster = sentinel.masterPort();

                        sentinel.killMaster();

                        await().atMost(Duration.ofSeconds(30))
                                .pollInterval(Duration.ofMillis(200))
                                .ignoreExceptions()
                                .until(() -> job.run("after-" + UUID.randomUUID()));
                        assertThat(sentinel.masterPort())
                                .as("the replica was promoted")
                                .isNotEqualTo(oldMaster);
                        RedisLock lock = client.getLock("direct-" + UUID.randomUUID());
                        assertThat(lock.tryLock(Duration.ofSeconds(5))).isTrue();
                        assertThat(sentinel.master().command("EXISTS", "lock:{" + lock.getKey() + "}"))
                                .isEqualTo(":1");
                        lock.unlock();
                    });
        }
    }

    @Test
    void clusterConfiguredApplicationLocksNamesAcrossSlots() {
        try (RedisClusterSetup cluster = RedisClusterSetup.start()) {
            runner().withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.clusterNodes())
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context.getBean(LettuceConnectionFactory.class)
                                        .getNativeClient())
                                .isInstanceOf(RedisClusterClient.class);
                        Job job = context.getBean(Job.class);
                        LockClient client = context.getBean(LockClient.class);
                        Set<Integer> nodes = new HashSet<>();
                        for (int i = 0; i < 30; i++) {
                            String id = "order-" + i + "-" + UUID.randomUUID();
                            RedisServer node = cluster.nodeFor("lock:{job:" + id + "}");
                            nodes.add(node.port());
                            assertThat(job.run(id))
                                    .as("annotated lock on %s", node)
                                    .isTrue();
                            RedisLock lock = client.getFairLock("fair-" + id);
                            assertThat(lock.tryLock(Duration.ofSeconds(2))).isTrue();
                            lock.unlock();
                        }
                        assertThat(nodes)
                                .as("names on every master")
                                .hasSize(cluster.nodes().size());
                        var multi = client.getMultiLock(
                                "a-" + UUID.randomUUID(), "b-" + UUID.randomUUID(), "c-" + UUID.randomUUID());
                        assertThat(multi.tryLock(Duration.ofSeconds(2))).isTrue();
                        multi.unlock();
                    });
        }
    }

    @Test
    void replicaAcksOnClusterFailStartupAsABadPropertyWhicheverClientTheApplicationUses() {
        try (RedisClusterSetup cluster = RedisClusterSetup.start()) {
            ApplicationContextRunner application = runner().withPropertyValues(
                            "spring.data.redis.cluster.nodes=" + cluster.clusterNodes(), "distlock.replica-acks=1");
            // Lettuce, then Jedis: the locks' own Lettuce client must not report it as a connection failure
            for (String clientType : new String[] {"lettuce", "jedis"}) {
                application
                        .withPropertyValues("spring.data.redis.client-type=" + clientType)
                        .run(context -> {
                            assertThat(context).hasFailed();
                            var analysis = AutoConfigurationTest.analyze(context.getStartupFailure());
                            assertThat(analysis.getDescription())
                                    .as(clientType)
                                    .startsWith("Invalid distlock.replica-acks: it is 1, but Redis is a Cluster");
                            assertThat(analysis.getAction())
                                    .as(clientType)
                                    .startsWith("Remove distlock.replica-acks (or set it to 0)")
                                    .doesNotContain("spring.data.redis");
                        });
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class JobConfig {
        @Bean
        Job job(LockClient client) {
            return new Job(client);
        }
    }

    /** A bean whose method runs under {@code @DistributedLock}. */
    static class Job {
        private final LockClient client;

        Job(LockClient client) {
            this.client = client;
        }

        /** Whether the lock named {@code job:<id>} was held in Redis while the method ran. */
        @DistributedLock(key = "'job:' + #id")
        public boolean run(String id) {
            return client.getLock("job:" + id).isLocked();
        }
    }
}
