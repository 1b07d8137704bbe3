package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.spring.actuate.DistributedLockBoot3HealthIndicator;
import dev.distlock.spring.actuate.RecentLeaseLosses;
import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import dev.distlock.spring.leader.Leadership;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The {@code distributedLock} health indicator on Spring Boot 3.5, whose health API (package
 * {@code org.springframework.boot.actuate.health}) Spring Boot 4 replaced; the 4.x indicator comes from
 * {@link DistributedLockActuatorAutoConfiguration}. Only one of the two APIs is ever on the classpath,
 * so only one of them registers. Switched off with {@code management.health.distributedlock.enabled=false}
 * as on 4.x.
 *
 * <p>Compiled against Spring Boot 3.5's health classes, which the build puts on the compile class path
 * only (see the starter's pom); nothing of them is in the jar.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnClass(
        value = LockClient.class,
        name = {
            "org.springframework.boot.actuate.health.HealthIndicator",
            "org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator"
        })
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnEnabledHealthIndicator("distributedlock")
public class DistributedLockBoot3HealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RecentLeaseLosses distributedLockRecentLeaseLosses(DistributedLockProperties properties, Environment environment) {
        return DistributedLockActuatorAutoConfiguration.recentLeaseLosses(properties, environment);
    }

    @Bean
    @ConditionalOnMissingBean(name = "distributedLockHealthIndicator")
    DistributedLockBoot3HealthIndicator distributedLockHealthIndicator(
            LockSource source,
            ActiveHolds holds,
            RecentLeaseLosses losses,
            DistributedLockProperties properties,
            Environment environment,
            ObjectProvider<Leadership> leadership) {
        return new DistributedLockBoot3HealthIndicator(
                source,
                holds,
                losses,
                DistributedLockActuatorAutoConfiguration.mode(properties),
                DistributedLockActuatorAutoConfiguration.healthTimeout(properties, environment),
                DistributedLockActuatorAutoConfiguration.leading(leadership));
    }
}
