package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockListener;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * distlock.max-hold, a method's maxHold and LockTemplate.withMaxHold: work that runs past its cap loses its
 * lock, is told (LockLeaseExpiredException on return, distributed.lock.lost), and was warned about once
 * before (distributed.lock.long.holds).
 */
@BehaviourTest
class MaxHoldStarterTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** Counted down when the client reports a lock lost, so that the work returns. */
    private final CountDownLatch lost = new CountDownLatch(1);

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Stuck.class, () -> new Stuck(lost))
                .withBean(LockListener.class, () -> new LockListener() {
                    @Override
                    public void onLeaseLost(LockInfo lock, String reason) {
                        lost.countDown();
                    }
                })
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "distlock.long-hold-warning=0.5",
                        "distlock.watchdog-lease=3s");
    }

    @Test
    void aMethodThatRunsPastMaxHoldLosesTheLockAndIsTold() {
        runner().withPropertyValues("distlock.max-hold=1s").run(context -> {
            assertThatThrownBy(context.getBean(Stuck.class)::loop)
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining("maxHold (1000 ms)");
            assertLostAndWarnedOnce(context.getBean(MeterRegistry.class), "stuck");
        });
    }

    @Test
    void aMethodsOwnMaxHoldCapsItWhereNoClientWideCapIsSet() {
        runner().run(context -> {
            assertThatThrownBy(context.getBean(Stuck.class)::loopWithItsOwnCap)
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining("maxHold (1000 ms)");
            assertLostAndWarnedOnce(context.getBean(MeterRegistry.class), "own-cap");
        });
    }

    @Test
    void aTemplatesMaxHoldCapsItsWork() {
        runner().run(context -> {
            LockTemplate template =
                    context.getBean(LockTemplate.class).withName("template-cap").withMaxHold(Duration.ofSeconds(1));
            assertThatThrownBy(() -> template.execute("template-job", Waits.GRANTED, this::awaitLoss))
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining("maxHold (1000 ms)");
            assertLostAndWarnedOnce(context.getBean(MeterRegistry.class), "template-cap");
            assertThatThrownBy(() -> template.withLeaseTime(Duration.ofSeconds(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("already the cap");
        });
    }

    private static void assertLostAndWarnedOnce(MeterRegistry registry, String name) {
        // The listeners are told one after the other on the watchdog's thread, and this test's own listener
        // (which lets the work return) may come before the metrics listener.
        await().atMost(Waits.GRANTED)
                .untilAsserted(() -> assertThat(registry.get(LockMetrics.LOST)
                                .tag("name", name)
                                .counter()
                                .count())
                        .isEqualTo(1.0));
        assertThat(registry.get(LockMetrics.LONG_HOLDS)
                        .tag("name", name)
                        .counter()
                        .count())
                .isEqualTo(1.0);
    }

    /** Runs until its lock is lost; gives up after Waits.GRANTED in case it never is. */
    private void awaitLoss() {
        Stuck.await(lost);
    }

    static class Stuck {
        private final CountDownLatch lost;

        Stuck(CountDownLatch lost) {
            this.lost = lost;
        }

        @DistributedLock(key = "stuck-job", name = "stuck")
        public void loop() {
            await(lost);
        }

        @DistributedLock(key = "own-cap-job", name = "own-cap", maxHold = "1s")
        public void loopWithItsOwnCap() {
            await(lost);
        }

        static void await(CountDownLatch lost) {
            try {
                lost.await(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
