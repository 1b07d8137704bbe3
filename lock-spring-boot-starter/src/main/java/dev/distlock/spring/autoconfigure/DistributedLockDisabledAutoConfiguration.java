package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.aop.AnnotatedMethods;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * With {@code distlock.enabled=false} every {@code @DistributedLock} method runs without a
 * lock; this says so at start-up, with how many methods that is, instead of staying silent.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "distlock.enabled", havingValue = false)
public class DistributedLockDisabledAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockDisabledAutoConfiguration.class);

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static SmartInitializingSingleton distributedLockDisabledWarning(ConfigurableListableBeanFactory beanFactory) {
        return () -> {
            List<AnnotatedMethods.Bean> beans = AnnotatedMethods.find(beanFactory);
            int methods = AnnotatedMethods.count(beans);
            if (methods > 0) {
                log.warn(
                        "distlock.enabled=false: {} @DistributedLock method(s) in {} bean(s) now run WITHOUT any lock,"
                                + " so concurrent calls are not excluded: {}. Remove the property to lock them again (distlock.mode=local locks them within this JVM, for"
                                + " tests and single-instance development)",
                        methods,
                        beans.size(),
                        beans.stream()
                                .map(b -> b.type().getSimpleName()
                                        + b.methods().stream()
                                                .map(m -> m.getName())
                                                .distinct()
                                                .toList())
                                .toList());
            }
        };
    }
}
