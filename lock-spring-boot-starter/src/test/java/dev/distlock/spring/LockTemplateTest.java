package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockType;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** LockTemplate runs on the annotation's code path: same locks, tokens, metrics and exceptions. */
@BehaviourTest
class LockTemplateTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.server().port())
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new);
    }

    @Test
    void workThatReturnsWorkStillRunningFailsInsteadOfLeavingItUnlocked() {
        runner().run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class).withName("async-inside");
            java.util.concurrent.CompletableFuture<String> later = new java.util.concurrent.CompletableFuture<>();
            assertThatThrownBy(() -> template.execute("order:9", Duration.ofSeconds(1), () -> later))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(
                            "LockTemplate 'async-inside' work returned a " + "java.util.concurrent.CompletableFuture")
                    .hasMessageContaining("Wait for the result inside the work");
            assertThatThrownBy(() ->
                            template.tryExecute("order:9", Duration.ZERO, () -> reactor.core.publisher.Mono.just(1)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("when subscribed to");
            assertThat(redis.server().command("EXISTS", "lock:{order:9}"))
                    .as("released as for any failure")
                    .isEqualTo(":0");
            assertThat(template.execute("order:9", Duration.ZERO, () -> later.getNow("plain values pass")))
                    .isEqualTo("plain values pass");
        });
    }

    @Test
    void runsTheWorkWhileHoldingTheKeyInRedisAndHandsOutItsFencingToken() {
        runner().run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class).withName("payments");
            long token = template.execute("order:1", Duration.ofSeconds(1), () -> {
                assertThat(redis.server().command("EXISTS", "lock:{order:1}")).isEqualTo(":1");
                return LockContext.currentToken();
            });
            assertThat(token).isPositive();
            assertThat(redis.server().command("EXISTS", "lock:{order:1}")).isEqualTo(":0");
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tags("name", "payments", "type", "REENTRANT", "outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(LockMetrics.HELD)
                            .tags("name", "payments")
                            .timer()
                            .count())
                    .isEqualTo(1);
        });
    }

    @Test
    void busyLockThrowsLockAcquisitionExceptionOrGivesEmptyWithTryExecute() {
        runner().run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class).withName("busy");
            try (LockClient otherInstance =
                    LockClient.create(RedisURI.create(redis.server().uri()))) {
                var elsewhere = otherInstance.getLock("order:2"); // another client: another owner, even on this thread
                elsewhere.lock();
                try {
                    assertThatThrownBy(() -> template.execute("order:2", Duration.ofMillis(100), () -> "ran"))
                            .isInstanceOf(LockAcquisitionException.class)
                            .hasMessageContaining("Lock 'order:2' for LockTemplate 'busy' is held elsewhere");
                    assertThat(template.tryExecute("order:2", Duration.ZERO, () -> "ran"))
                            .isEmpty();
                } finally {
                    elsewhere.unlock();
                }
            }
            assertThat(template.tryExecute("order:2", Duration.ZERO, () -> "ran"))
                    .isEqualTo(Optional.of("ran"));
            assertThat(context.getBean(MeterRegistry.class)
                            .get(LockMetrics.ACQUIRE)
                            .tags("name", "busy", "outcome", "timeout")
                            .timer()
                            .count())
                    .isEqualTo(2);
        });
    }

    @Test
    void lostLeaseThrowsLockLeaseExpiredExceptionAsTheAnnotationDoes() {
        runner().run(context -> {
            LockTemplate template =
                    context.getBean(LockTemplate.class).withName("short").withLeaseTime(Duration.ofMillis(200));
            assertThatThrownBy(() -> template.execute(
                            "report",
                            Duration.ZERO,
                            () -> await().atMost(Duration.ofSeconds(5))
                                    .until(() -> redis.server()
                                            .command("EXISTS", "lock:{report}")
                                            .equals(":0"))))
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining("report");
            // The metrics listener is told on the lease timer's thread, just after the loss is marked.
            await().atMost(Waits.GRANTED)
                    .untilAsserted(() -> assertThat(context.getBean(MeterRegistry.class)
                                    .get(LockMetrics.LOST)
                                    .tags("name", "short")
                                    .counter()
                                    .count())
                            .isEqualTo(1));
        });
    }

    @Test
    void executeAllHoldsEveryKeyAndCountsOneAcquisition() {
        runner().run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class).withName("transfer");
            template.executeAll(List.of("account:2", "account:1"), Duration.ofSeconds(1), () -> {
                assertThat(redis.server().command("EXISTS", "lock:{account:1}")).isEqualTo(":1");
                assertThat(redis.server().command("EXISTS", "lock:{account:2}")).isEqualTo(":1");
                assertThat(LockContext.currentTokens()).containsOnlyKeys("account:1", "account:2");
                return null;
            });
            assertThat(context.getBean(MeterRegistry.class)
                            .get(LockMetrics.ACQUIRE)
                            .tags("name", "transfer")
                            .timer()
                            .count())
                    .isEqualTo(1);
        });
    }

    @Test
    void executeAllTakesWorkWithoutAResult() {
        runner().run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class).withName("transfer");
            List<String> heldDuring = new java.util.ArrayList<>();
            template.executeAll(
                    List.of("account:4", "account:3"),
                    Duration.ofSeconds(1),
                    () -> { // work without a result: the Runnable form
                        heldDuring.add(redis.server().command("EXISTS", "lock:{account:3}", "lock:{account:4}"));
                    });
            assertThat(heldDuring).containsExactly(":2");
            assertThat(redis.server().command("EXISTS", "lock:{account:3}", "lock:{account:4}"))
                    .as("released after")
                    .isEqualTo(":0");
        });
    }

    @Test
    void readAndWriteTypesShareAndExcludeAsTheAnnotationDoes() {
        runner().run(context -> {
            LockTemplate readers =
                    context.getBean(LockTemplate.class).withName("doc").withType(LockType.READ);
            LockTemplate writers = readers.withType(LockType.WRITE);
            String nested = readers.execute("doc:1", Duration.ZERO, () -> {
                // another thread may read too, but not write
                return java.util.concurrent.CompletableFuture.supplyAsync(
                                () -> readers.tryExecute("doc:1", Duration.ZERO, () -> "r")
                                                .orElse("-")
                                        + writers.tryExecute("doc:1", Duration.ZERO, () -> "w")
                                                .orElse("-"))
                        .join();
            });
            assertThat(nested).isEqualTo("r-");
        });
    }

    @Test
    void badArgumentsSayWhatIsWrong() {
        runner().run(context -> {
            LockTemplate template = context.getBean(LockTemplate.class);
            assertThatThrownBy(() -> template.execute(" ", Duration.ZERO, () -> 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("LockTemplate 'LockTemplate' needs a key");
            assertThatThrownBy(() -> template.execute("k", Duration.ofSeconds(-1), () -> 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Duration.ZERO to try once");
            assertThatThrownBy(() -> template.execute("bad\nkey", Duration.ZERO, () -> 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("LockTemplate 'LockTemplate' cannot lock")
                    .hasMessageContaining("control character");
            assertThatThrownBy(() -> template.withLeaseTime(Duration.ofMillis(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("give a lease from 10 ms");
            assertThatThrownBy(() -> template.withLeaseTime(Duration.ofDays(400)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("to 365 days");
            assertThatThrownBy(() -> template.withHoldAtLeast(Duration.ofDays(400)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at most 365 days");
            assertThatThrownBy(template::withRedLock)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("distlock.redlock.nodes is not set");
        });
    }
}
