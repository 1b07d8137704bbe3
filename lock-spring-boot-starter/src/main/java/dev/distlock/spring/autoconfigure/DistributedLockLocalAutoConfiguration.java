package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockListener;
import dev.distlock.spring.execution.LockSource;
import dev.distlock.spring.local.LocalLocks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * {@code distlock.mode=local}: the annotation, LockTemplate, metrics, tracing and Actuator
 * work as usual, on locks kept in this JVM; no Redis connection is made. NOT distributed. No
 * {@code LockClient} bean: it is the Redis client; inject {@code LockTemplate}, which works in every mode.
 */
@AutoConfiguration(before = DistributedLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnProperty(name = "distlock.mode", havingValue = "local")
@EnableConfigurationProperties(DistributedLockProperties.class)
public class DistributedLockLocalAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockLocalAutoConfiguration.class);

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockSource.class)
    LocalLocks distributedLockSource(
            DistributedLockProperties properties,
            ObjectProvider<LockListener> listeners,
            ObjectProvider<LockClientOptionsCustomizer> customizers,
            Environment environment) {
        // Built and checked as for the Redis client, so a property that fails start-up in Redis mode fails it here too.
        LockClientOptions options = LockClientSettings.options(properties, listeners, customizers, environment);
        log.warn(
                "distlock.mode=local: @DistributedLock and LockTemplate lock within this JVM only, NOT distributed; other"
                        + " instances of this application do not exclude each other, and the starter creates no LockClient (it is"
                        + " the Redis client). Use it for tests and single-instance development, never in a cluster");
        return new LocalLocks(options);
    }
}
