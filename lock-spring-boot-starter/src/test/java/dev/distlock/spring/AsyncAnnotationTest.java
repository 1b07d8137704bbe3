package dev.distlock.spring;

import static dev.distlock.spring.HoldChecks.lockedInRedis;
import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * {@code @Async} and {@code @DistributedLock} on the same {@code CompletableFuture} method: every body runs
 * inside the lock, one at a time, and the lock is free once every call completed. {@code @Async} adds
 * nothing there: its executor's thread only waits for the locked call, which returns at once anyway.
 */
@BehaviourTest
class AsyncAnnotationTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class AsyncConfig {}

    /** The executor {@code @Async} picks by name, its threads named so the test can tell them. */
    static Executor payThreads() {
        AtomicInteger made = new AtomicInteger();
        return Executors.newFixedThreadPool(4, task -> new Thread(task, "pay-" + made.incrementAndGet()));
    }

    @Test
    void everyBodyRunsInsideTheLockOneAtATime() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.server().port())
                .withUserConfiguration(AsyncConfig.class)
                .withBean("taskExecutor", Executor.class, AsyncAnnotationTest::payThreads)
                .withBean(Payments.class)
                .run(context -> {
                    Payments payments = context.getBean(Payments.class);
                    List<CompletableFuture<Boolean>> calls = new ArrayList<>();
                    for (int i = 0; i < 12; i++) {
                        calls.add(payments.pay("order:async"));
                    }
                    for (CompletableFuture<Boolean> call : calls) {
                        assertThat(call.get(30, TimeUnit.SECONDS))
                                .as("the lock was held in Redis while the body ran")
                                .isTrue();
                    }
                    assertThat(payments.counts().ran.get()).isEqualTo(12);
                    assertThat(payments.counts().mostAtOnce.get()).isEqualTo(1);
                    assertThat(lockedInRedis(redis.server(), "order:async")).isFalse();
                    // Spring puts its async advisor first: the executor's thread calls through the lock and waits,
                    // and once the lock is held the method runs on the starter's invoking threads.
                    assertThat(payments.counts().threads).allMatch(t -> t.startsWith("distlock-invoke-"));
                });
    }

    /** What the bodies saw; read through {@link Payments#counts()}, as the bean is a class proxy. */
    static class Counts {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger mostAtOnce = new AtomicInteger();
        final AtomicInteger ran = new AtomicInteger();
        final Set<String> threads = ConcurrentHashMap.newKeySet();
    }

    public static class Payments {
        private final Counts counts = new Counts();

        public Counts counts() {
            return counts;
        }

        /** Completes with whether the lock was held in Redis while the body ran. */
        @Async
        @DistributedLock(key = "#key", waitTime = "30s")
        public CompletableFuture<Boolean> pay(String key) throws InterruptedException {
            int now = counts.inside.incrementAndGet();
            counts.mostAtOnce.accumulateAndGet(now, Math::max);
            counts.threads.add(Thread.currentThread().getName());
            boolean held = lockedInRedis(redis.server(), key);
            Thread.sleep(20);
            counts.ran.incrementAndGet();
            counts.inside.decrementAndGet();
            return CompletableFuture.completedFuture(held);
        }
    }
}
