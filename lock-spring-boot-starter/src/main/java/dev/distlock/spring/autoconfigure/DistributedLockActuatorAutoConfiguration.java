package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.spring.actuate.DistributedLockHealthIndicator;
import dev.distlock.spring.actuate.DistributedLocksEndpoint;
import dev.distlock.spring.actuate.ForceUnlockDistributedLocksEndpoint;
import dev.distlock.spring.actuate.RecentLeaseLosses;
import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import dev.distlock.spring.leader.Leadership;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The {@code distributedlocks} Actuator endpoint (holds of this instance; force-unlock only with
 * {@code distlock.actuator.force-unlock.enabled=true}) and the {@code distributedLock}
 * health indicator on Spring Boot 4.x's health API, each when its Spring Boot module is present. On
 * Spring Boot 3.5 the health indicator comes from {@link DistributedLockBoot3HealthAutoConfiguration}.
 */
@AutoConfiguration(after = LockClientSettings.class)
@ConditionalOnClass(LockClient.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
public class DistributedLockActuatorAutoConfiguration {

    static final String FORCE_UNLOCK = "distlock.actuator.force-unlock.enabled";

    static String mode(DistributedLockProperties properties) {
        return properties.getMode().name().toLowerCase(java.util.Locale.ROOT);
    }

    /** distlock.health.timeout, checked: zero or less would report DOWN before Redis could answer. */
    static java.time.Duration healthTimeout(DistributedLockProperties properties, Environment environment) {
        return LockClientSettings.checked(
                properties.getHealth().getTimeout(), "distlock.health.timeout", true, environment);
    }

    /** A LockListener, so the lock client reports lease losses to it; the health indicator of either Boot line shows them. */
    static RecentLeaseLosses recentLeaseLosses(DistributedLockProperties properties, Environment environment) {
        // Zero or less would hide every loss.
        return new RecentLeaseLosses(LockClientSettings.checked(
                properties.getHealth().getLeaseLossWindow(), "distlock.health.lease-loss-window", true, environment));
    }

    /** The roles this instance leads, with their terms; none without a Leadership bean. */
    static Supplier<Map<String, Long>> leading(ObjectProvider<Leadership> leadership) {
        return () -> {
            Leadership l = leadership.getIfAvailable();
            return l == null ? Map.of() : l.leading();
        };
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(Endpoint.class)
    @ConditionalOnAvailableEndpoint(DistributedLocksEndpoint.class)
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean(DistributedLocksEndpoint.class)
        @ConditionalOnBooleanProperty(name = FORCE_UNLOCK, havingValue = false, matchIfMissing = true)
        DistributedLocksEndpoint distributedLocksEndpoint(
                ActiveHolds holds,
                DistributedLockProperties properties,
                LockSource source,
                ObjectProvider<Leadership> leadership) {
            return new DistributedLocksEndpoint(holds, mode(properties), source, leading(leadership));
        }

        @Bean
        @ConditionalOnMissingBean(DistributedLocksEndpoint.class)
        @ConditionalOnBooleanProperty(name = FORCE_UNLOCK)
        ForceUnlockDistributedLocksEndpoint distributedLocksForceUnlockEndpoint(
                ActiveHolds holds,
                DistributedLockProperties properties,
                LockSource source,
                ObjectProvider<Leadership> leadership) {
            return new ForceUnlockDistributedLocksEndpoint(holds, mode(properties), source, leading(leadership));
        }
    }

    /** Spring Boot 4.x: its health API is module spring-boot-health. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("distributedlock")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RecentLeaseLosses distributedLockRecentLeaseLosses(
                DistributedLockProperties properties, Environment environment) {
            return recentLeaseLosses(properties, environment);
        }

        @Bean
        @ConditionalOnMissingBean(name = "distributedLockHealthIndicator")
        DistributedLockHealthIndicator distributedLockHealthIndicator(
                LockSource source,
                ActiveHolds holds,
                RecentLeaseLosses losses,
                DistributedLockProperties properties,
                Environment environment,
                ObjectProvider<Leadership> leadership) {
            return new DistributedLockHealthIndicator(
                    source,
                    holds,
                    losses,
                    mode(properties),
                    healthTimeout(properties, environment),
                    leading(leadership));
        }
    }
}
