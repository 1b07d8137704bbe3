package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.spring.actuate.AllInstancesHolders;
import dev.distlock.spring.actuate.DistributedLockHealthIndicator;
import dev.distlock.spring.actuate.DistributedLocksEndpoint;
import dev.distlock.spring.actuate.ForceUnlockDistributedLocksEndpoint;
import dev.distlock.spring.actuate.RecentLeaseLosses;
import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import dev.distlock.spring.leader.Leadership;
import dev.distlock.spring.redis.InstanceRecords;
import dev.distlock.spring.redis.LockHashReader;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

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

    /**
     * Records this instance in Redis (client id -> application, host, pid) so that any instance's endpoint can
     * name it beside its locks, and publishes when each of this instance's holds began (for held-for); keys
     * with a TTL, refreshed by a timer, off every lock's path.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = "distlock.mode", havingValue = "redis", matchIfMissing = true)
    InstanceRecords distributedLockInstanceRecords(
            DistributedLockProperties properties,
            ObjectProvider<LockClient> client,
            ObjectProvider<RedisConnectionFactory> redis,
            Environment environment) {
        return new InstanceRecords(
                redis::getIfAvailable,
                properties.getKeyPrefix(),
                () -> {
                    LockClient lockClient = client.getIfAvailable();
                    return lockClient == null ? null : lockClient.clientId();
                },
                environment.getProperty("spring.application.name", "application"),
                () -> client.getObject().heldLocks());
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
                ObjectProvider<Leadership> leadership,
                ObjectProvider<LockClient> client,
                ObjectProvider<RedisConnectionFactory> redis) {
            return new DistributedLocksEndpoint(
                    holds, mode(properties), source, leading(leadership), allInstances(properties, client, redis));
        }

        @Bean
        @ConditionalOnMissingBean(DistributedLocksEndpoint.class)
        @ConditionalOnBooleanProperty(name = FORCE_UNLOCK)
        ForceUnlockDistributedLocksEndpoint distributedLocksForceUnlockEndpoint(
                ActiveHolds holds,
                DistributedLockProperties properties,
                LockSource source,
                ObjectProvider<Leadership> leadership,
                ObjectProvider<LockClient> client,
                ObjectProvider<RedisConnectionFactory> redis) {
            return new ForceUnlockDistributedLocksEndpoint(
                    holds, mode(properties), source, leading(leadership), allInstances(properties, client, redis));
        }

        /** Every instance's holders, read from Redis; null in local mode. */
        private static AllInstancesHolders allInstances(
                DistributedLockProperties properties,
                ObjectProvider<LockClient> client,
                ObjectProvider<RedisConnectionFactory> redis) {
            LockClient lockClient = client.getIfAvailable();
            RedisConnectionFactory factory = redis.getIfAvailable();
            if (properties.getMode() != DistributedLockProperties.Mode.REDIS || lockClient == null || factory == null) {
                return null;
            }
            return new AllInstancesHolders(
                    new LockHashReader(factory, properties.getKeyPrefix(), properties.getOperationTimeout()),
                    factory,
                    properties.getKeyPrefix(),
                    lockClient.clientId(),
                    properties.getActuator().getMaxListedLocks()); // checked with the client options
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
