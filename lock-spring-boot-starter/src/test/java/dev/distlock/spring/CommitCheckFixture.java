package dev.distlock.spring;

import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockTransactionAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.RedisServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** What the tests of the check before commit (imperative and reactive transactions) start from and read. */
final class CommitCheckFixture {

    private static final AtomicInteger databases = new AtomicInteger();

    private CommitCheckFixture() {}

    /**
     * The starter on {@code redis} with the check and its meters, a simple MeterRegistry, and {@code config},
     * which finds a database name of its own, for this context only, in property {@code test.db}.
     */
    static ApplicationContextRunner runner(RedisServer redis, String database, Class<?> config) {
        return BootLine.starterOn(redis)
                .withConfiguration(AutoConfigurations.of(
                        DistributedLockTransactionAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("test.db=" + database + "-" + databases.incrementAndGet())
                .withUserConfiguration(config);
    }

    /** How many transactions found their lock lost before they committed, with {@code outcome}. */
    static double lostBeforeCommit(MeterRegistry registry, String outcome) {
        return registry.find(LockMetrics.LOST_BEFORE_COMMIT).tag(LockMetrics.OUTCOME, outcome).counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }
}
