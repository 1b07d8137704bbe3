package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** distlock.on-lease-lost and throw-on-lease-lost: what an annotated method's caller sees when the lock is lost mid-run. */
@BehaviourTest
class LeaseLostTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    static LockClient operator;

    @BeforeAll
    static void connectOperator() {
        operator = LockClient.create(RedisURI.create(redis.server().uri()));
    }

    @AfterAll
    static void closeOperator() {
        operator.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.server().port(), "distlock.watchdog-lease=600ms")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Job.class);
    }

    @Test
    void byDefaultTheMethodRunsOnAndItsCallerGetsTheSpecificException() {
        runner().run(context -> {
            Job job = context.getBean(Job.class);
            assertThatThrownBy(() -> job.run("log"))
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining("job:log");
            assertThat(job.outcome()).isEqualTo("finished");
            assertThat(context.getBean(MeterRegistry.class)
                            .get(LockMetrics.LOST)
                            .counter()
                            .count())
                    .isEqualTo(1);
        });
    }

    @Test
    void interruptStopsTheMethodAndDoesNotLeakTheInterruptToTheCaller() {
        runner().withPropertyValues("distlock.on-lease-lost=interrupt").run(context -> {
            Job job = context.getBean(Job.class);
            assertThatThrownBy(() -> job.run("interrupt")).isInstanceOf(LockLeaseExpiredException.class);
            assertThat(job.outcome()).isEqualTo("interrupted");
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        });
    }

    @Test
    void throwOnLeaseLostFalseReturnsTheResultButStillCountsTheLoss() {
        runner().withPropertyValues("distlock.throw-on-lease-lost=false").run(context -> {
            Job job = context.getBean(Job.class);
            assertThat(job.run("quiet")).isEqualTo("finished");
            assertThat(context.getBean(MeterRegistry.class)
                            .get(LockMetrics.LOST)
                            .counter()
                            .count())
                    .isEqualTo(1);
        });
    }

    @Test
    void aLeaseThatRunsOutBeforeTheMethodStartsFailsTheCallWithTheSameExceptionAndTheMethodNeverRuns() {
        // A listener that is told of the grant holds the caller until the 1 s lease has run out in Redis, as a
        // stall of the host between the grant and the method would.
        LockListener stall = new LockListener() {
            @Override
            public void onAcquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {
                if (lock.key().equals("job:stalled") && outcome == AcquireOutcome.ACQUIRED) {
                    await().atMost(Waits.GRANTED)
                            .until(() -> redis.server()
                                    .command("EXISTS", "lock:{job:stalled}")
                                    .equals(":0"));
                }
            }
        };
        runner().withBean(LockListener.class, () -> stall)
                .withBean(ShortJob.class)
                .run(context -> {
                    ShortJob job = context.getBean(ShortJob.class);
                    assertThatThrownBy(() -> job.run("stalled"))
                            .isInstanceOf(LockLeaseExpiredException.class)
                            .hasMessageContaining("job:stalled");
                    assertThat(job.ran).as("the method did not run").isFalse();
                    await().atMost(Waits.GRANTED)
                            .untilAsserted(() -> assertThat(context.getBean(MeterRegistry.class)
                                            .get(LockMetrics.LOST)
                                            .tag("name", "short-job")
                                            .counter()
                                            .count())
                                    .isEqualTo(1));
                });
    }

    public static class ShortJob {
        volatile boolean ran;

        @DistributedLock(key = "'job:' + #name", leaseTime = "1s", name = "short-job")
        public void run(String name) {
            ran = true;
        }
    }

    public static class Job {
        private final AtomicReference<String> outcome = new AtomicReference<>();
        private final MeterRegistry registry;

        public Job(MeterRegistry registry) {
            this.registry = registry;
        }

        public String outcome() {
            return outcome.get();
        }

        /**
         * Deletes its own lock from another client (as an operator would), then works on until the watchdog
         * has seen the loss: counted it, or (job "interrupt") interrupted this thread. Not a fixed time, which a
         * loaded host's late watchdog round could outlast; Waits.GRANTED at the most.
         */
        @DistributedLock(key = "'job:' + #name")
        public String run(String name) {
            // The operator's client is opened once per class: closing it here could itself be interrupted
            // (Lettuce 6 on Spring Boot 3.5 lets shutdown throw RedisCommandInterruptedException).
            operator.getLock("job:" + name).forceUnlock();
            long deadline = System.nanoTime() + Waits.GRANTED.toNanos();
            try {
                while (System.nanoTime() - deadline < 0 && (name.equals("interrupt") || !lossCounted())) {
                    Thread.sleep(10);
                }
                outcome.set("finished");
            } catch (InterruptedException e) {
                outcome.set("interrupted");
            }
            return outcome.get();
        }

        private boolean lossCounted() {
            Counter lost = registry.find(LockMetrics.LOST).counter();
            return lost != null && lost.count() > 0;
        }
    }
}
