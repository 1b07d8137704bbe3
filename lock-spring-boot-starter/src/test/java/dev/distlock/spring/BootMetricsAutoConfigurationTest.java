package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.spring.metrics.MicrometerLockListener;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The lock meters in the registry that Spring Boot's own metrics auto-configuration makes, as in an
 * application with Actuator, on the Boot line the tests run on (4.x here, 3.5.x in lock-boot35-tests).
 * Ordered before Boot's metrics auto-configuration, ours would find no MeterRegistry bean and record
 * nothing, with no error anywhere: no registry is made by hand here.
 */
class BootMetricsAutoConfigurationTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        // Ours listed first, so only the ordering in their @AutoConfiguration puts them after Boot's.
        List<Class<?>> configurations = new ArrayList<>(List.of(
                DistributedLockMetricsAutoConfiguration.class, DistributedLockAutoConfiguration.class, BootLine.REDIS));
        configurations.addAll(List.of(BootLine.METRICS));
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(configurations.toArray(Class<?>[]::new)))
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(), "distributed-lock.watchdog-lease=300ms")
                .withBean(Work.class);
    }

    @Test
    void everyLockMeterIsRecordedInTheRegistryOfBootsMetricsAutoConfiguration() {
        runner().run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(MeterRegistry.class);
            assertThat(context)
                    .as("lock metrics listener (missing when ordered before Boot's metrics auto-configuration)")
                    .hasSingleBean(MicrometerLockListener.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Work work = context.getBean(Work.class);

            work.holdUntilRenewed(registry);
            assertThatThrownBy(() -> work.holdUntilLost(registry)).isInstanceOf(LockLeaseExpiredException.class);

            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tags("name", "work", "outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(2);
            assertThat(registry.get(LockMetrics.HELD)
                            .tags("name", "work")
                            .timer()
                            .count())
                    .isPositive();
            assertThat(registry.get(LockMetrics.ACTIVE).gauge().value()).isZero();
            assertThat(registry.get(LockMetrics.RENEWALS)
                            .tags("outcome", "renewed")
                            .counter()
                            .count())
                    .isPositive();
            assertThat(registry.get(LockMetrics.LOST)
                            .tags("name", "work")
                            .counter()
                            .count())
                    .isEqualTo(1);
        });
    }

    public static class Work {

        /** Holds its lock until the watchdog (renewing every 100 ms) has renewed it once. */
        @DistributedLock(key = "'renewed'", name = "work")
        public void holdUntilRenewed(MeterRegistry registry) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> count(registry.find(LockMetrics.RENEWALS).counter()) > 0);
        }

        /** Has its lock deleted by another client (as an operator would), and holds on until the loss is counted. */
        @DistributedLock(key = "'lost'", name = "work")
        public void holdUntilLost(MeterRegistry registry) {
            try (LockClient operator =
                    LockClient.create(RedisURI.create(redis.server().uri()))) {
                operator.getLock("lost").forceUnlock();
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> count(registry.find(LockMetrics.LOST).counter()) > 0);
        }

        private static double count(Counter counter) {
            return counter == null ? 0 : counter.count();
        }
    }
}
