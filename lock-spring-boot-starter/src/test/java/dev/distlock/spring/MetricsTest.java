package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.Answered;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

@BehaviourTest
class MetricsTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "distlock.wait-time=" + HoldChecks.WAIT_RUNS_OUT,
                        // a hold is lost when no renewal is confirmed within one lease: 300 ms and 600 ms were
                        // too tight for a loaded machine where the lock must survive
                        "distlock.watchdog-lease=2s")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Payments.class);
    }

    @Test
    void recordsAcquireHeldAndActiveTaggedByDeclaredNameNeverByKey() {
        runner().run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Payments payments = context.getBean(Payments.class);
            payments.pay(1, registry);
            payments.pay(2, registry);
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tags("name", "payments", "outcome", "acquired", "type", "REENTRANT")
                            .timer()
                            .count())
                    .isEqualTo(2);
            assertThat(registry.get(LockMetrics.HELD)
                            .tags("name", "payments")
                            .timer()
                            .count())
                    .isEqualTo(2);
            assertThat(registry.find(LockMetrics.ACQUIRE).meters())
                    .allSatisfy(m -> assertThat(m.getId().getTags()).doesNotContain(Tag.of("name", "pay:1")));
            assertThat(payments.activeSeenInside()).isEqualTo(1.0);
            assertThat(registry.get(LockMetrics.ACTIVE).gauge().value()).isZero();
        });
    }

    @Test
    void multiKeyCallCountsOneAcquisitionAndOneHoldTaggedAsTheAnnotationSpellsTheType() {
        runner().run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            context.getBean(Payments.class).transfer(1, 2);
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tags("name", "transfer", "type", "REENTRANT", "outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(LockMetrics.HELD)
                            .tags("name", "transfer")
                            .timer()
                            .count())
                    .isEqualTo(1);
            context.getBean(Payments.class).audit("a");
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tags("name", "audit", "type", "READ")
                            .timer()
                            .count())
                    .isEqualTo(1);
        });
    }

    @Test
    void locksUsedDirectlyThroughTheClientAreStillCountedPerLock() {
        runner().run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            var lock = context.getBean(dev.distlock.core.LockClient.class).getLock("direct:1", "direct");
            lock.lock();
            lock.unlock();
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tags("name", "direct", "type", "REENTRANT", "outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(LockMetrics.HELD)
                            .tags("name", "direct")
                            .timer()
                            .count())
                    .isEqualTo(1);
        });
    }

    @Test
    void recordsTimeoutsWhenTheLockIsBusy() throws Exception {
        try (var other = dev.distlock.core.LockClient.create(
                RedisURI.create(redis.server().uri()))) {
            runner().run(context -> {
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                var busy = other.getLock("pay:9");
                CountDownLatch held = new CountDownLatch(1);
                CountDownLatch done = new CountDownLatch(1);
                Thread holder = new Thread(() -> {
                    busy.lock();
                    held.countDown();
                    try {
                        done.await();
                    } catch (InterruptedException ignored) {
                        Thread.currentThread().interrupt();
                    } finally {
                        busy.unlock();
                    }
                });
                holder.start();
                held.await();
                // a wait in which Redis never answered (a starved host) is sent again: the outcome under test
                // is the busy lock's timeout, and unanswered waits are counted under another outcome
                assertThatThrownBy(() -> Answered.call(LockUnavailableException.class, () -> {
                            context.getBean(Payments.class).pay(9, registry);
                            return null;
                        }))
                        .isInstanceOf(LockAcquisitionException.class);
                done.countDown();
                holder.join();
                assertThat(registry.get(LockMetrics.ACQUIRE)
                                .tags("name", "payments", "outcome", "timeout")
                                .timer()
                                .count())
                        .isEqualTo(1);
            });
        }
    }

    @Test
    void countsRenewalsAndLostLeases() {
        runner().run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Payments payments = context.getBean(Payments.class);
            payments.slowWithWatchdog(); // 2 s lease, renewed every 667 ms while it runs 3,500 ms: 5 renewals, or fewer
            // late
            assertThat(registry.get(LockMetrics.RENEWALS)
                            .tags("outcome", "renewed")
                            .counter()
                            .count())
                    .isGreaterThanOrEqualTo(3);
            // an explicit lease shorter than the work: the lock expires mid-work and is reported
            assertThatThrownBy(payments::outlivesItsLease)
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining("short-lease");
            // The lease's timer marks the hold lost (what the unlock above sees) and then tells the listeners,
            // on its own thread: the count may come a moment after the unlock threw.
            var lost = registry.get(LockMetrics.LOST)
                    .tags("name", "Payments.outlivesItsLease")
                    .counter();
            await().atMost(Duration.ofSeconds(10)).until(() -> lost.count() >= 1);
            assertThat(lost.count()).as("once").isEqualTo(1);
        });
    }

    public static class Payments {
        private volatile double activeSeenInside;

        public double activeSeenInside() {
            return activeSeenInside;
        }

        @DistributedLock(key = "'pay:' + #id", name = "payments")
        public void pay(int id, MeterRegistry registry) {
            activeSeenInside = registry.get(LockMetrics.ACTIVE).gauge().value();
        }

        @DistributedLock(
                keys = {"'account:' + #from", "'account:' + #to"},
                name = "transfer")
        public void transfer(long from, long to) {}

        @DistributedLock(key = "#doc", name = "audit", type = dev.distlock.core.LockType.READ)
        public void audit(String doc) {}

        @DistributedLock(key = "slow")
        public void slowWithWatchdog() throws InterruptedException {
            Thread.sleep(3_500);
        }

        // Runs out while the method runs, never before it starts: a 100 ms lease could, on a loaded host,
        // between the grant and the fencing token's read ("no fencing token" instead of a lost lease).
        @DistributedLock(key = "short-lease", leaseTime = "1s")
        public void outlivesItsLease() {
            org.awaitility.Awaitility.await()
                    .atMost(Waits.GRANTED)
                    .until(() -> redis.server()
                            .command("EXISTS", "lock:{short-lease}")
                            .equals(":0"));
        }
    }
}
