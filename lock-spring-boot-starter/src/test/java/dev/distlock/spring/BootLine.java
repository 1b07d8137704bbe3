package dev.distlock.spring;

import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.RedisServer;
import java.util.Arrays;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.ClassUtils;

/**
 * Spring Boot's own auto-configurations that the tests put beside ours, by their class names on Spring
 * Boot 4.x and on 3.5.x: the same test sources run on both lines (the 3.5 line in module
 * lock-boot35-tests), and the classes moved between the two.
 */
final class BootLine {

    /** Whether the Spring Boot on the classpath is the 4.x line (else 3.5.x). */
    static final boolean BOOT_4 = ClassUtils.isPresent(
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
            BootLine.class.getClassLoader());

    /** Spring Boot's Redis auto-configuration: the RedisConnectionFactory from spring.data.redis.*. */
    static final Class<?> REDIS = BOOT_4
            ? load("org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
            : load("org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration");

    /** Spring Boot's metrics auto-configurations: the MeterRegistry an application with Actuator gets. */
    static final Class<?>[] METRICS = BOOT_4
            ? loadAll(
                    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
                    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration")
            : loadAll(
                    "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
                    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
                    "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration");

    /** Spring Boot's observation auto-configuration: the application's ObservationRegistry, with a meter handler. */
    static final Class<?> OBSERVATION = BOOT_4
            ? load("org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
            : load("org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration");

    private BootLine() {}

    /** A context with Spring Boot's Redis and our auto-configuration, on {@code redis}: what most starter tests start from. */
    static ApplicationContextRunner starterOn(RedisServer redis) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.port());
    }

    /** Every auto-configuration of the starter, as its imports file lists them: what an application gets. */
    static Class<?>[] starterAutoConfigurations() {
        return ImportCandidates.load(AutoConfiguration.class, null).getCandidates().stream()
                .filter(name -> name.startsWith("dev.distlock."))
                .map(BootLine::load)
                .toArray(Class<?>[]::new);
    }

    /** Redisson's starter's auto-configuration for this line (its jar has one per line), which replaces the connection factory. */
    static Class<?> redisson() {
        return load(
                BOOT_4
                        ? "org.redisson.spring.starter.RedissonAutoConfigurationV4"
                        : "org.redisson.spring.starter.RedissonAutoConfigurationV2");
    }

    private static Class<?>[] loadAll(String... names) {
        return Arrays.stream(names).map(BootLine::load).toArray(Class<?>[]::new);
    }

    private static Class<?> load(String name) {
        return ClassUtils.resolveClassName(name, BootLine.class.getClassLoader());
    }
}
