package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.actuate.AllInstancesHolders;
import dev.distlock.spring.autoconfigure.DistributedLockActuatorAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.redis.LockHashReader;
import dev.distlock.testsupport.RedisClusterSetup;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** The all-instances listing on Redis Cluster: its SCAN walks every master, so locks in every slot range are listed. */
@SlowTest
class AllInstancesOnClusterTest {

    @Test
    void listsTheLocksOfEveryMasterWithTheInstanceThatHoldsThem() {
        try (RedisClusterSetup cluster = RedisClusterSetup.start()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(
                            BootLine.REDIS,
                            DistributedLockAutoConfiguration.class,
                            DistributedLockActuatorAutoConfiguration.class))
                    .withPropertyValues(
                            "spring.data.redis.cluster.nodes=" + cluster.clusterNodes(),
                            "spring.application.name=cluster-app")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        LockClient client = context.getBean(LockClient.class);
                        RedisConnectionFactory redis = context.getBean(RedisConnectionFactory.class);
                        List<RedisLock> held = new ArrayList<>();
                        Set<Integer> masters = new HashSet<>();
                        for (int i = 0; held.size() < 12; i++) {
                            RedisLock lock = client.getLock("scan-" + i);
                            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
                            held.add(lock);
                            masters.add(cluster.nodeFor("lock:{scan-" + i + "}").port());
                        }
                        assertThat(masters)
                                .as("locks on every master")
                                .hasSize(cluster.nodes().size());
                        java.util.function.IntFunction<AllInstancesHolders> reading = max -> new AllInstancesHolders(
                                new LockHashReader(redis, "lock:", Duration.ofSeconds(5)),
                                redis,
                                "lock:",
                                client.clientId(),
                                max);
                        AllInstancesHolders all = reading.apply(1000);
                        try {
                            await().atMost(Waits.GRANTED)
                                    .until(() -> all.list().locks().stream()
                                            .allMatch(l -> l.holders()
                                                    .get(0)
                                                    .instance()
                                                    .startsWith("application=cluster-app")));
                            AllInstancesHolders.AllHoldsDescriptor listing = all.list();
                            assertThat(listing.locks())
                                    .extracting(AllInstancesHolders.LockDescriptor::key)
                                    .containsExactlyInAnyOrderElementsOf(
                                            held.stream().map(RedisLock::getKey).toList());
                            assertThat(listing.locks()).allSatisfy(lock -> {
                                assertThat(lock.leaseLeftMs()).isPositive();
                                assertThat(lock.holders().get(0).thisInstance()).isTrue();
                            });
                            AllInstancesHolders capped = reading.apply(5);
                            assertThat(capped.list().locks()).hasSize(5);
                            assertThat(capped.list().truncated()).isTrue();
                        } finally {
                            held.forEach(RedisLock::unlock);
                        }
                    });
        }
    }
}
