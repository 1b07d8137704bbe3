package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockType;
import dev.distlock.spring.aop.DistributedLockAdvisor;
import dev.distlock.spring.execution.LockSource;
import dev.distlock.spring.leader.Leadership;
import dev.distlock.spring.metrics.LeadershipMetrics;
import dev.distlock.spring.metrics.LockInstrumentation;
import dev.distlock.spring.metrics.LockMetersAtStartup;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.spring.metrics.LostBeforeCommitMeter;
import dev.distlock.spring.metrics.MicrometerLockListener;
import dev.distlock.spring.metrics.ObservationLockInstrumentation;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.GlobalObservationConvention;
import io.micrometer.observation.ObservationFilter;
import io.micrometer.observation.ObservationPredicate;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/** Micrometer metrics for distributed locks, when Micrometer and a {@link MeterRegistry} are present. */
@AutoConfiguration(
        before = DistributedLockAutoConfiguration.class,
        after = DistributedLockObservationAutoConfiguration.class,
        afterName = {
            // After the MeterRegistry exists, or @ConditionalOnBean(MeterRegistry) silently drops every lock meter.
            // Spring Boot 4.x names (module spring-boot-micrometer-metrics):
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            // Spring Boot 3.5.x names (spring-boot-actuator-autoconfigure):
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass({MeterRegistry.class, LockClient.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(
        name = {"distlock.enabled", "distlock.metrics.enabled"},
        matchIfMissing = true)
public class DistributedLockMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    MicrometerLockListener distributedLockMetricsListener(MeterRegistry registry) {
        return new MicrometerLockListener(registry);
    }

    /** Counts the locks found lost before a transaction committed (distlock.transaction.*). */
    @Bean
    @ConditionalOnMissingBean
    LostBeforeCommitMeter distributedLockLostBeforeCommitMeter(MeterRegistry registry) {
        return new LostBeforeCommitMeter(registry);
    }

    /**
     * Times each @DistributedLock and LockTemplate call once, whatever its number of keys. Without an
     * application ObservationRegistry (see {@link DistributedLockObservationAutoConfiguration}) the
     * same observations feed a registry of our own whose only handler writes the meters, so the
     * meters have the same names and tags either way.
     */
    @Bean
    @ConditionalOnMissingBean
    LockInstrumentation distributedLockInstrumentation(MeterRegistry registry) {
        ObservationRegistry meterOnly = ObservationRegistry.create();
        meterOnly.observationConfig().observationHandler(new DefaultMeterObservationHandler(registry));
        return new ObservationLockInstrumentation(meterOnly);
    }

    /**
     * Every lock meter at zero once the application has started, so that dashboards and alerts can be
     * built before the first event: per declared @DistributedLock lock, and the renewal outcomes. With an
     * application ObservationRegistry the acquire/held timers get the tags its predicates, conventions
     * and filters would give them.
     */
    @Bean
    SmartInitializingSingleton distributedLockMetersAtStartup(
            MeterRegistry registry,
            ConfigurableListableBeanFactory beanFactory,
            ObjectProvider<DistributedLockAdvisor> advisor,
            Environment environment) {
        return () -> {
            boolean applicationObservations = beanFactory.getBeanNamesForType(ObservationRegistry.class).length > 0;
            LockMetersAtStartup meters = applicationObservations
                    ? new LockMetersAtStartup(
                            registry,
                            beanFactory
                                    .getBeanProvider(ObservationPredicate.class)
                                    .orderedStream()
                                    .toList(),
                            beanFactory
                                    .getBeanProvider(GlobalObservationConvention.class)
                                    .orderedStream()
                                    .<GlobalObservationConvention<?>>map(c -> c)
                                    .toList(),
                            beanFactory
                                    .getBeanProvider(ObservationFilter.class)
                                    .orderedStream()
                                    .toList(),
                            environment.getProperty(
                                    "management.observations.long-task-timer.enabled", Boolean.class, true))
                    : new LockMetersAtStartup(registry, List.of(), List.of(), List.of(), true);
            meters.registerShared();
            advisor.ifAvailable(
                    a -> a.declaredLocks(beanFactory).forEach(lock -> meters.register(lock.name(), lock.type())));
        };
    }

    /** Leaderships granted and revoked per role, counted from the leader elections' events. */
    @Bean
    @ConditionalOnMissingBean
    LeadershipMetrics distributedLockLeadershipMetrics(MeterRegistry registry) {
        return new LeadershipMetrics(registry);
    }

    /** The leadership counters of every role at zero once the application has started. */
    @Bean
    SmartInitializingSingleton distributedLockLeadershipMetersAtStartup(
            LeadershipMetrics metrics, ObjectProvider<Leadership> leadership) {
        return () -> leadership.ifAvailable(l -> metrics.registerRoles(l.roles()));
    }

    /** Registered directly (not as a MeterBinder) so it works without Spring Boot's metrics auto-configuration too. */
    @Bean
    Gauge distributedLockActiveGauge(MeterRegistry registry, LockSource source) {
        return Gauge.builder(LockMetrics.ACTIVE, source, LockSource::activeHolds)
                .description("Distributed locks this instance holds now")
                .register(registry);
    }

    /** Semaphore permits this instance holds now, from the clients' own records: no call to Redis. */
    @Bean
    Gauge distributedLockPermitsGauge(MeterRegistry registry, LockSource source) {
        return Gauge.builder(LockMetrics.PERMITS, source, DistributedLockMetricsAutoConfiguration::permitsHeld)
                .description("Semaphore permits this instance holds now")
                .register(registry);
    }

    private static double permitsHeld(LockSource source) {
        return source.heldLocks().stream()
                .filter(held ->
                        held.lock().type() == LockType.SEMAPHORE || held.lock().type() == LockType.FAIR_SEMAPHORE)
                .count();
    }
}
