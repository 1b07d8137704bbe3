package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockType;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockLocalAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @DistributedLock(permits = n)} and {@code LockTemplate.withPermits(n)}: at most n calls run at once
 * (across threads and another instance), each with its own fencing token in {@link LockContext}, a call
 * finds the permits taken elsewhere as it would a busy lock, metrics tag the type, and local mode does
 * the same.
 */
@BehaviourTest
class SemaphoreAnnotationTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockLocalAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withUserConfiguration(Exports.class)
                .withPropertyValues("spring.data.redis.port=" + redis.server().port());
    }

    @Test
    void atMostThePermitsRunAtOnceEachWithATokenOfItsOwn() {
        runner().run(context -> assertBounded(context.getBean(Exports.class)));
    }

    @Test
    void inLocalModeToo() {
        runner().withPropertyValues("distlock.mode=local")
                .run(context -> assertBounded(context.getBean(Exports.class)));
    }

    @Test
    void permitsTakenByAnotherInstanceAreBusyAndTaggedInMetrics() {
        runner().run(context -> {
            Exports exports = context.getBean(Exports.class);
            try (LockClient otherInstance =
                    LockClient.create(RedisURI.create(redis.server().uri()))) {
                LockHandle all = otherInstance.getSemaphore("partner-api", 2).acquire(2);
                assertThatThrownBy(exports::exportOnce)
                        .isInstanceOf(LockAcquisitionException.class)
                        .hasMessageContaining("partner-api");
                all.unlock();
                assertThat(exports.exportOnce()).isPositive();
            }
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tag("type", "SEMAPHORE")
                            .meters())
                    .isNotEmpty();
        });
    }

    @Test
    void lockTemplateTakesPermitsAndRefusesWhatASemaphoreCannotDo() {
        runner().run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class).withName("exports");
            LockTemplate fair = template.withType(LockType.FAIR).withPermits(3);

            assertThat(fair.execute("fair-exports", Duration.ofSeconds(30), LockContext::currentToken))
                    .isPositive();
            assertThatThrownBy(() -> template.withPermits(0)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> fair.withType(LockType.REENTRANT))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("before withPermits");
            assertThatThrownBy(() -> fair.withRedLock()).isInstanceOf(RuntimeException.class);
            assertThatThrownBy(() -> fair.executeAll(List.of("a", "b"), Duration.ZERO, () -> 1))
                    .isInstanceOf(IllegalArgumentException.class);
        });
    }

    private static void assertBounded(Exports exports) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<Long>> calls = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                calls.add(pool.submit(exports::export));
            }
            for (Future<Long> call : calls) {
                assertThat(call.get(60, TimeUnit.SECONDS)).isPositive();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(exports.most()).isBetween(1, 2);
        assertThat(exports.tokens()).hasSize(30).doesNotHaveDuplicates();
    }

    static class Exports {
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger most = new AtomicInteger();
        private final ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();

        /** The most calls that ran at once (read through the proxy, whose own fields are unused). */
        public int most() {
            return most.get();
        }

        public List<Long> tokens() {
            return List.copyOf(tokens);
        }

        @DistributedLock(key = "'partner-api-calls'", permits = 2, waitTime = "60s")
        public long export() throws InterruptedException {
            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
            try {
                Thread.sleep(5); // stay inside a little, so that calls overlap
                long token = LockContext.currentToken();
                tokens.add(token);
                return token;
            } finally {
                inside.decrementAndGet();
            }
        }

        @DistributedLock(key = "'partner-api'", permits = 2, waitTime = "200ms")
        public long exportOnce() {
            return LockContext.currentToken();
        }
    }
}
