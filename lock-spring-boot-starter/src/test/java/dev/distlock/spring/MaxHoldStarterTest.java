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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * distlock.max-hold: a method that runs past it loses its lock, is told (LockLeaseExpiredException on
 * return, distributed.lock.lost), and was warned about once before (distributed.lock.long.holds).
 */
@BehaviourTest
class MaxHoldStarterTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void aMethodThatRunsPastMaxHoldLosesTheLockAndIsTold() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Stuck.class)
                .withBean(LockListener.class, () -> new LockListener() {
                    @Override
                    public void onLeaseLost(LockInfo lock, String reason) {
                        LOST.countDown();
                    }
                })
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "distlock.max-hold=1s",
                        "distlock.long-hold-warning=0.5",
                        "distlock.watchdog-lease=3s")
                .run(context -> {
                    Stuck stuck = context.getBean(Stuck.class);

                    assertThatThrownBy(stuck::loop)
                            .isInstanceOf(LockLeaseExpiredException.class)
                            .hasMessageContaining("maxHold");

                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    // The listeners are told one after the other on the watchdog's thread, and this test's
                    // own listener (which lets the method return) may come before the metrics listener.
                    await().atMost(Waits.GRANTED)
                            .untilAsserted(() -> assertThat(registry.get(LockMetrics.LOST)
                                            .tag("name", "stuck")
                                            .counter()
                                            .count())
                                    .isEqualTo(1.0));
                    assertThat(registry.get(LockMetrics.LONG_HOLDS)
                                    .tag("name", "stuck")
                                    .counter()
                                    .count())
                            .isEqualTo(1.0);
                });
    }

    /** Counted down when the client reports the lock lost. */
    static final CountDownLatch LOST = new CountDownLatch(1);

    static class Stuck {
        /** Runs until its lock is lost (the cap is 1 s); gives up after Waits.GRANTED in case it never is. */
        @DistributedLock(key = "stuck-job", name = "stuck")
        public void loop() throws InterruptedException {
            LOST.await(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
        }
    }
}
