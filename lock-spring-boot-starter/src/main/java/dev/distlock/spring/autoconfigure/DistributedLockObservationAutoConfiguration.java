package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.spring.metrics.LockInstrumentation;
import dev.distlock.spring.metrics.ObservationLockInstrumentation;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Lock calls as Micrometer observations on the application's {@link ObservationRegistry}: its
 * tracing handler makes the wait and the hold spans, its meter handler (Spring Boot adds one when a
 * MeterRegistry exists) makes the {@code distributed.lock.acquire} and {@code distributed.lock.held}
 * timers. Switch them off with {@code management.observations.enable.distributed.lock=false}.
 */
@AutoConfiguration(
        before = DistributedLockAutoConfiguration.class,
        afterName = {
            // After the ObservationRegistry and MeterRegistry exist. Spring Boot 4.x names:
            "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            // Spring Boot 3.5.x names:
            "org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@ConditionalOnClass({ObservationRegistry.class, LockClient.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
public class DistributedLockObservationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockInstrumentation distributedLockInstrumentation(ObservationRegistry registry) {
        return new ObservationLockInstrumentation(registry);
    }
}
