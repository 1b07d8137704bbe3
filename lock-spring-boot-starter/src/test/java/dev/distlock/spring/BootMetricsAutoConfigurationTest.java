package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockObservationAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.spring.metrics.MicrometerLockListener;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.observation.ObservationRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
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
                // renewed every 667 ms; a renewal a loaded host sends a second late still lands before the lease
                // ends, so the held work's unlock never finds it lost
                .withPropertyValues("spring.data.redis.port=" + redis.server().port(), "distlock.watchdog-lease=2s")
                .withBean(Work.class);
    }

    @Test
    void everyLockMeterIsListedAtZeroFromStartUpAndTheFirstEventsLandOnTheSameMeters() {
        runner().run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertListedAtZeroFromStartUp(registry, Tags.empty());
            context.getBean(Work.class).holdUntilRenewed(registry);
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tags("name", "work", "type", "REENTRANT", "outcome", "acquired", "error", "none")
                            .timer()
                            .count())
                    .as("the meter registered at start-up, now counting")
                    .isEqualTo(1);
            assertOneTagKeySetPerMeterName(registry);
        });
    }

    /**
     * With Spring Boot's observation auto-configuration the acquire/held timers come from its meter
     * handler, with its key values (management.observations.key-values): the meters registered at
     * start-up carry them too, or a Prometheus registry would refuse the real ones.
     */
    @Test
    void withBootsObservationsTheMetersListedAtStartUpCarryTheSameKeyValues() {
        runner().withConfiguration(
                        AutoConfigurations.of(BootLine.OBSERVATION, DistributedLockObservationAutoConfiguration.class))
                .withPropertyValues("management.observations.key-values.region=eu-test")
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(ObservationRegistry.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertListedAtZeroFromStartUp(registry, Tags.of("region", "eu-test"));
                    context.getBean(Work.class).holdUntilRenewed(registry);
                    assertThat(registry.get(LockMetrics.ACQUIRE)
                                    .tags("name", "work", "outcome", "acquired", "region", "eu-test")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                    assertOneTagKeySetPerMeterName(registry);
                });
        runner().withConfiguration(
                        AutoConfigurations.of(BootLine.OBSERVATION, DistributedLockObservationAutoConfiguration.class))
                .withPropertyValues("management.observations.enable.distributed.lock=false")
                .run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.find(LockMetrics.ACQUIRE).meters())
                            .as("no timer for observations that are switched off")
                            .isEmpty();
                    assertThat(registry.get(LockMetrics.LOST).counter().count()).isZero();
                });
    }

    private static void assertListedAtZeroFromStartUp(MeterRegistry registry, Tags observationTags) {
        for (String outcome : List.of("renewed", "lost", "error")) {
            assertThat(registry.get(LockMetrics.RENEWALS)
                            .tag("outcome", outcome)
                            .counter()
                            .count())
                    .isZero();
        }
        assertThat(registry.get(LockMetrics.LOST)
                        .tags("name", "work", "type", "REENTRANT")
                        .counter()
                        .count())
                .isZero();
        assertThat(registry.get(LockMetrics.ACTIVE).gauge().value()).isZero();
        Tags lock = Tags.of("name", "work", "type", "REENTRANT");
        for (String outcome : List.of("acquired", "timeout")) {
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tags(lock.and(observationTags).and("outcome", outcome, "error", "none"))
                            .timer()
                            .count())
                    .isZero();
        }
        assertThat(registry.get(LockMetrics.HELD)
                        .tags(lock.and(observationTags).and("error", "none"))
                        .timer()
                        .count())
                .isZero();
        for (String active : List.of(LockMetrics.ACQUIRE + ".active", LockMetrics.HELD + ".active")) {
            assertThat(registry.get(active).tags(lock).longTaskTimer().activeTasks())
                    .isZero();
        }
    }

    /** What Prometheus demands: all meters of one name have the same tag keys. */
    private static void assertOneTagKeySetPerMeterName(MeterRegistry registry) {
        Map<String, Set<Set<String>>> keys = new TreeMap<>();
        for (Meter meter : registry.getMeters()) {
            if (meter.getId().getName().startsWith("distributed.lock.")) {
                keys.computeIfAbsent(meter.getId().getName(), n -> new HashSet<>())
                        .add(meter.getId().getTags().stream().map(Tag::getKey).collect(Collectors.toSet()));
            }
        }
        assertThat(keys)
                .isNotEmpty()
                .allSatisfy((name, sets) -> assertThat(sets).as(name).hasSize(1));
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

        /** Holds its lock until the watchdog (renewing every 200 ms) has renewed it once. */
        @DistributedLock(key = "'renewed'", name = "work")
        public void holdUntilRenewed(MeterRegistry registry) {
            await().atMost(Waits.GRANTED)
                    .until(() -> count(registry.find(LockMetrics.RENEWALS).counter()) > 0);
        }

        /** Has its lock deleted by another client (as an operator would), and holds on until the loss is counted. */
        @DistributedLock(key = "'lost'", name = "work")
        public void holdUntilLost(MeterRegistry registry) {
            try (LockClient operator =
                    LockClient.create(RedisURI.create(redis.server().uri()))) {
                operator.getLock("lost").forceUnlock();
            }
            await().atMost(Waits.GRANTED)
                    .until(() -> count(registry.find(LockMetrics.LOST).counter()) > 0);
        }

        private static double count(Counter counter) {
            return counter == null ? 0 : counter.count();
        }
    }
}
