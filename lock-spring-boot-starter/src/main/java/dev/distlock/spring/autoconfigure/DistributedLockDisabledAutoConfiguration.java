package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.LockTemplate;
import dev.distlock.spring.aop.AnnotatedMethods;
import dev.distlock.spring.execution.LockExecutor;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * With {@code distlock.enabled=false} every {@code @DistributedLock} method runs without a lock, and
 * so does {@link LockTemplate}'s work: the template stays injectable, so an application that uses it
 * still starts. No {@code LockClient} is created: it is the Redis client, and switching locks off
 * means no Redis connection. One line at start-up says so, with how many annotated methods that is.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "distlock.enabled", havingValue = false)
@EnableConfigurationProperties(DistributedLockProperties.class)
public class DistributedLockDisabledAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockDisabledAutoConfiguration.class);

    /** Runs its work at once, unlocked, as the annotation's methods do now; a user's own template wins. */
    @Bean
    @ConditionalOnMissingBean
    LockTemplate distributedLockTemplate(DistributedLockProperties properties, Environment environment) {
        // The same start-up check of distlock.lease-time as with locks on, so switching them back on cannot fail late.
        Duration lease = LockClientSettings.checkedLease(properties.getLeaseTime(), environment);
        // redlockConfigured: a template asking for RedLock runs unlocked like any other, as the annotation does.
        return new LockTemplate(LockExecutor.unlocked(), lease, true);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static SmartInitializingSingleton distributedLockDisabledWarning(ConfigurableListableBeanFactory beanFactory) {
        return () -> {
            List<AnnotatedMethods.Bean> beans = AnnotatedMethods.find(beanFactory);
            int methods = AnnotatedMethods.count(beans);
            // One line, whatever the count: what the annotation, LockTemplate and LockClient do now.
            log.warn(
                    "distlock.enabled=false: {} @DistributedLock method(s) in {} bean(s) now run WITHOUT any lock{},"
                            + " and LockTemplate runs its work WITHOUT any lock too, so concurrent calls are not excluded;"
                            + " the starter creates no LockClient (it is the Redis client). Remove the property to lock them again"
                            + " (distlock.mode=local locks them within this JVM, for tests and single-instance development)",
                    methods,
                    beans.size(),
                    methods == 0
                            ? ""
                            : ": "
                                    + beans.stream()
                                            .map(b -> b.type().getSimpleName()
                                                    + b.methods().stream()
                                                            .map(m -> m.getName())
                                                            .distinct()
                                                            .toList())
                                            .toList());
        };
    }
}
