package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An annotated call when Redis does not answer: it returns within its wait time (plus the documented
 * slack) with {@link LockUnavailableException}, apart from a busy lock's {@link LockAcquisitionException},
 * and the metrics tell the two apart. Bounds are generous: the point is seconds, not the 60 s command
 * time-out the calls used to wait for.
 */
@SlowTest
class RedisUnavailableTest {

    private static final Duration GENEROUS = Duration.ofSeconds(3);

    private RedisServer server;

    @BeforeEach
    void start() {
        server = RedisServer.start();
    }

    @AfterEach
    void stop() {
        if (server.isRunning()) {
            server.resume();
        }
        server.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + server.port(), "distlock.operation-timeout=500ms")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Payments.class);
    }

    @Test
    void pausedRedisFailsTheCallWithinItsWaitTimeAsUnavailable() {
        runner().run(context -> {
            Payments payments = context.getBean(Payments.class);
            payments.pay(1); // connected and warmed up
            server.pause();

            long start = System.nanoTime();
            assertThatThrownBy(() -> payments.pay(2))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("Payments.pay")
                    .hasMessageContaining("did not answer");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GENEROUS);
            assertThat(payments.runs()).isEqualTo(1);
            assertThat(acquisitions(context.getBean(MeterRegistry.class), "unavailable"))
                    .isEqualTo(1);
        });
    }

    @Test
    void stoppedRedisFailsTheCallWithinItsWaitTimeAsUnavailable() {
        runner().run(context -> {
            Payments payments = context.getBean(Payments.class);
            payments.pay(1);
            server.stop();

            long start = System.nanoTime();
            assertThatThrownBy(() -> payments.pay(2)).isInstanceOf(LockUnavailableException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GENEROUS);
            assertThat(payments.runs()).isEqualTo(1);
        });
    }

    @Test
    void aBusyLockIsStillLockAcquisitionExceptionAndCountedAsTimeout() {
        runner().run(context -> {
            Payments payments = context.getBean(Payments.class);
            try (LockClient other = LockClient.create(RedisURI.create(server.uri()))) {
                RedisLock lock = other.getLock("order:7");
                lock.lock();
                try {
                    assertThatThrownBy(() -> payments.pay(7))
                            .isInstanceOf(LockAcquisitionException.class)
                            .isNotInstanceOf(LockUnavailableException.class);
                } finally {
                    lock.unlock();
                }
            }
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(acquisitions(registry, "timeout")).isEqualTo(1);
            assertThat(registry.find(LockMetrics.ACQUIRE)
                            .tag(LockMetrics.OUTCOME, "unavailable")
                            .timer())
                    .isNull();
        });
    }

    @Test
    void aReleaseRedisDoesNotConfirmDoesNotFailAFinishedCall() {
        runner().run(context -> {
            Payments payments = context.getBean(Payments.class);
            long start = System.nanoTime();
            assertThat(payments.payThenLoseRedis(3, server)).isEqualTo("paid 3");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(GENEROUS);
            server.resume();
            // the release is retried in the background: the lock frees itself without waiting for its lease
            try (LockClient other = LockClient.create(RedisURI.create(server.uri()))) {
                assertThat(other.getLock("order:3").tryLock(Duration.ofSeconds(5)))
                        .isTrue();
            }
        });
    }

    /** Over every lock name: each declared lock has its own acquire timers from start-up. */
    private static double acquisitions(MeterRegistry registry, String outcome) {
        return registry.get(LockMetrics.ACQUIRE).tag(LockMetrics.OUTCOME, outcome).timers().stream()
                .mapToLong(io.micrometer.core.instrument.Timer::count)
                .sum();
    }

    public static class Payments {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @DistributedLock(key = "'order:' + #orderId", waitTime = "300ms")
        public String pay(long orderId) {
            runs.incrementAndGet();
            return "paid " + orderId;
        }

        @DistributedLock(key = "'order:' + #orderId", waitTime = "300ms")
        public String payThenLoseRedis(long orderId, RedisServer server) {
            server.pause();
            return "paid " + orderId;
        }
    }
}
