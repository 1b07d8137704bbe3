package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockType;
import dev.distlock.spring.actuate.DistributedLocksEndpoint;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.autoconfigure.DistributedLockActuatorAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockLocalAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.Waits;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** distlock.mode=local: the same annotation, template, metrics and errors, in this JVM, with no Redis at all. */
@ExtendWith(OutputCaptureExtension.class)
@BehaviourTest
class LocalModeTest {

    /** Spring's Redis points at a port nobody listens on: any Redis call would fail. */
    static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockLocalAutoConfiguration.class,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class,
                        DistributedLockActuatorAutoConfiguration.class))
                .withPropertyValues(
                        "distlock.mode=local",
                        "spring.data.redis.port=" + dev.distlock.testsupport.Ports.closed(),
                        "distlock.wait-time=100ms",
                        "management.endpoints.web.exposure.include=distributedlocks")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Work.class);
    }

    @Test
    void startsWithoutRedisAndWarnsThatLocksAreNotDistributed(CapturedOutput output) {
        runner().run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(LockClient.class);
            assertThat(output).contains("distlock.mode=local").contains("NOT distributed");
        });
    }

    @Test
    void excludesConcurrentCallersWithTheSameExceptionsAndMetricsAsRedisMode() throws Exception {
        runner().run(context -> {
            Work work = context.getBean(Work.class);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> work.hold("order:1", release));
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> context.getBean(DistributedLocksEndpoint.class)
                                    .holds()
                                    .holds()
                                    .size()
                            == 1);
            assertThat(context.getBean(DistributedLocksEndpoint.class).holds().mode())
                    .isEqualTo("local");

            assertThatThrownBy(() -> work.hold("order:1", new CountDownLatch(0)))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("Lock 'order:1' for Work.hold(String, CountDownLatch) is held elsewhere");
            assertThat(work.skip("order:1")).isEmpty();
            assertThat(context.getBean(LockTemplate.class).tryExecute("order:1", Duration.ZERO, () -> "ran"))
                    .isEmpty();
            assertThat(work.hold("order:2", new CountDownLatch(0)))
                    .as("another key is free")
                    .isPositive();

            release.countDown();
            holder.get(10, TimeUnit.SECONDS);
            long first = work.hold("order:1", new CountDownLatch(0));
            long second = work.hold("order:1", new CountDownLatch(0));
            assertThat(second).as("fencing tokens grow").isGreaterThan(first);

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get(LockMetrics.ACQUIRE)
                            .tags("name", "Work.hold", "type", "REENTRANT", "outcome", "timeout")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(meters.get(LockMetrics.ACQUIRE)
                            .tags("name", "Work.hold", "outcome", "acquired")
                            .timer()
                            .count())
                    .isEqualTo(4);
            assertThat(meters.get(LockMetrics.ACTIVE).gauge().value()).isZero();
        });
    }

    @Test
    void fixedLeaseRunsOutAsInRedisMode() {
        runner().run(context -> {
            Work work = context.getBean(Work.class);
            assertThatThrownBy(work::outliveLease)
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining("short");
            // The metrics listener is told on the lease timer's thread, just after the loss is marked.
            await().atMost(Waits.GRANTED)
                    .untilAsserted(() -> assertThat(context.getBean(MeterRegistry.class)
                                    .get(LockMetrics.LOST)
                                    .tags("name", "Work.outliveLease")
                                    .counter()
                                    .count())
                            .isEqualTo(1));
            // the lock was free for others once the lease ran out
            assertThat(context.getBean(LockTemplate.class).tryExecute("short", Duration.ZERO, () -> "ran"))
                    .contains("ran");
        });
    }

    @Test
    void aLostRedLockIsCountedUnderTheRedLockTypeItWasRegisteredWith() {
        runner().run(context -> {
            Work work = context.getBean(Work.class);
            assertThatThrownBy(work::outliveRedLockLease).isInstanceOf(LockLeaseExpiredException.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            // The metrics listener is told on the lease timer's thread, just after the loss is marked.
            await().atMost(Waits.GRANTED)
                    .until(() ->
                            registry.find(LockMetrics.LOST).tags("name", "Work.outliveRedLockLease").counters().stream()
                                    .anyMatch(lost -> lost.count() >= 1));
            assertThat(registry.find(LockMetrics.LOST)
                            .tags("name", "Work.outliveRedLockLease")
                            .counters())
                    .as("one series, the one registered at start-up")
                    .singleElement()
                    .satisfies(lost -> {
                        assertThat(lost.getId().getTag("type")).isEqualTo("REDLOCK");
                        assertThat(lost.count()).isEqualTo(1);
                    });
        });
    }

    @Test
    void readersShareWritersExcludeAndAReaderCannotUpgrade() {
        runner().run(context -> {
            LockTemplate readers = context.getBean(LockTemplate.class).withType(LockType.READ);
            LockTemplate writers = readers.withType(LockType.WRITE);
            String seen = readers.execute(
                    "doc",
                    Duration.ZERO,
                    () -> CompletableFuture.supplyAsync(() -> readers.tryExecute("doc", Duration.ZERO, () -> "r")
                                            .orElse("-")
                                    + writers.tryExecute("doc", Duration.ZERO, () -> "w")
                                            .orElse("-"))
                            .join());
            assertThat(seen).isEqualTo("r-");
            assertThatThrownBy(() -> readers.execute(
                            "doc", Duration.ZERO, () -> writers.execute("doc", Duration.ZERO, () -> "w")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot upgrade to the write lock");
            assertThat(writers.execute(
                            "doc", Duration.ZERO, () -> readers.execute("doc", Duration.ZERO, () -> "downgrade")))
                    .isEqualTo("downgrade");
        });
    }

    @Test
    void asyncAndReactiveMethodsHoldTheirLocalLockUntilTheirWorkIsDoneAsInRedisMode() throws Exception {
        runner().run(context -> {
            Work work = context.getBean(Work.class);
            LockTemplate template = context.getBean(LockTemplate.class);

            CompletableFuture<Void> done = new CompletableFuture<>();
            CompletableFuture<Long> future = work.pending("order:5", done);
            await().atMost(Duration.ofSeconds(10)).until(() -> work.invocations() == 1);
            assertThat(template.tryExecute("order:5", Duration.ZERO, () -> "ran"))
                    .as("held while the returned stage is pending")
                    .isEmpty();
            assertThatThrownBy(() -> work.hold("order:5", new CountDownLatch(0)))
                    .isInstanceOf(LockAcquisitionException.class);
            done.complete(null);
            assertThat(future.get(10, TimeUnit.SECONDS))
                    .as("the token, from LockContext")
                    .isPositive();
            assertThat(template.tryExecute("order:5", Duration.ZERO, () -> "ran"))
                    .contains("ran");

            Sinks.Empty<Void> monoDone = Sinks.empty();
            CompletableFuture<Long> mono =
                    work.mono("order:6", monoDone.asMono()).toFuture();
            await().atMost(Duration.ofSeconds(10)).until(() -> work.invocations() == 2);
            assertThat(template.tryExecute("order:6", Duration.ZERO, () -> "ran"))
                    .isEmpty();
            monoDone.tryEmitEmpty();
            assertThat(mono.get(10, TimeUnit.SECONDS))
                    .as("the token, from the Reactor Context")
                    .isPositive();
            assertThat(template.tryExecute("order:6", Duration.ZERO, () -> "ran"))
                    .contains("ran");

            List<Long> ticks = work.ticks("order:7").take(3).collectList().block(Duration.ofSeconds(10));
            assertThat(ticks).hasSize(3).allSatisfy(token -> assertThat(token).isPositive());
            assertThat(ticks.stream().distinct()).as("one hold, one token").hasSize(1);
            // released by the cancel, off the caller's thread, as in Redis mode
            await().atMost(Waits.GRANTED)
                    .untilAsserted(() -> assertThat(template.tryExecute("order:7", Duration.ZERO, () -> "ran"))
                            .as("released when take(3) cancelled the Flux")
                            .contains("ran"));

            Map<String, Long> tokens = work.tokensOf("acct:a", "acct:b").get(10, TimeUnit.SECONDS);
            assertThat(tokens).as("every key's own token").containsOnlyKeys("acct:a", "acct:b");
            assertThat(tokens.get("acct:a")).isPositive().isNotEqualTo(tokens.get("acct:b"));

            assertThatThrownBy(() -> work.failing("order:8").get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(IllegalStateException.class);
            assertThat(template.tryExecute("order:8", Duration.ZERO, () -> "ran"))
                    .as("released after the failure")
                    .contains("ran");
            assertThat(context.getBean(MeterRegistry.class)
                            .get(LockMetrics.HELD)
                            .tags("name", "Work.pending")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(context.getBean(MeterRegistry.class)
                            .get(LockMetrics.ACTIVE)
                            .gauge()
                            .value())
                    .isZero();
        });
    }

    @Test
    void callsWaitingForALocalLockHoldNoThreadAndOneCancelledWhileWaitingNeverRuns() throws Exception {
        runner().withPropertyValues("distlock.wait-time=1m").run(context -> {
            Work work = context.getBean(Work.class);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Long> holder = CompletableFuture.supplyAsync(() -> work.hold("order:9", release));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> context.getBean(DistributedLocksEndpoint.class)
                                    .holds()
                                    .holds()
                                    .size()
                            == 1);
            int threadsBefore = Thread.activeCount();
            List<CompletableFuture<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                calls.add(work.exclusive("order:9"));
            }
            CompletableFuture<Integer> cancelled = work.exclusive("order:9");
            assertThat(Thread.activeCount() - threadsBefore)
                    .as("threads started for 501 waiting calls")
                    .isLessThan(20);

            assertThat(cancelled.cancel(true)).isTrue();
            release.countDown();
            holder.get(10, TimeUnit.SECONDS);
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

            assertThat(work.invocations())
                    .as("500 ran, the cancelled one never")
                    .isEqualTo(500);
            assertThat(work.maxInside()).as("one at a time").isEqualTo(1);
            assertThat(context.getBean(LockTemplate.class).tryExecute("order:9", Duration.ZERO, () -> "ran"))
                    .as("nothing left held")
                    .contains("ran");
            assertThat(context.getBean(MeterRegistry.class)
                            .get(LockMetrics.ACQUIRE)
                            .tags("name", "Work.exclusive", "outcome", "cancelled")
                            .timer()
                            .count())
                    .isEqualTo(1);
        });
    }

    public static class Work {
        private final dev.distlock.spring.execution.LockSource locks;

        public Work(dev.distlock.spring.execution.LockSource locks) {
            this.locks = locks;
        }

        @DistributedLock(key = "#key")
        public long hold(String key, CountDownLatch release) {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return LockContext.currentToken();
        }

        private final AtomicInteger invocations = new AtomicInteger();
        private final Executor elsewhere = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "work-elsewhere");
            t.setDaemon(true);
            return t;
        });
        private final AtomicInteger inside = new AtomicInteger();
        private final AtomicInteger maxInside = new AtomicInteger();

        public int invocations() {
            return invocations.get();
        }

        public int maxInside() {
            return maxInside.get();
        }

        /** Holds the lock until {@code done} completes; yields the token it saw. */
        @DistributedLock(key = "#key")
        public CompletableFuture<Long> pending(String key, CompletableFuture<Void> done) {
            invocations.incrementAndGet();
            long token = LockContext.currentToken();
            return done.thenApply(v -> token);
        }

        @DistributedLock(key = "#key")
        public Mono<Long> mono(String key, Mono<Void> done) {
            invocations.incrementAndGet();
            return ReactiveLockContext.currentToken().flatMap(token -> done.thenReturn(token));
        }

        /** Endless: the token of its hold, every 10 ms. */
        @DistributedLock(key = "#key")
        public Flux<Long> ticks(String key) {
            return ReactiveLockContext.currentToken()
                    .flatMapMany(token ->
                            Flux.interval(Duration.ZERO, Duration.ofMillis(10)).map(i -> token));
        }

        @DistributedLock(keys = {"#a", "#b"})
        public CompletableFuture<Map<String, Long>> tokensOf(String a, String b) {
            return CompletableFuture.completedFuture(LockContext.currentTokens());
        }

        @DistributedLock(key = "#key")
        public CompletableFuture<String> failing(String key) {
            return CompletableFuture.failedFuture(new IllegalStateException("out of stock"));
        }

        /** Inside from its invocation until its stage completes on another thread (one for every call). */
        @DistributedLock(key = "#key")
        public CompletableFuture<Integer> exclusive(String key) {
            invocations.incrementAndGet();
            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            return CompletableFuture.supplyAsync(inside::decrementAndGet, elsewhere);
        }

        @DistributedLock(key = "#key", waitTime = "0", onFailure = OnLockFailure.SKIP)
        public Optional<String> skip(String key) {
            return Optional.of("ran");
        }

        // Leases that run out while the method runs: long enough that they cannot run out before it starts (a
        // loaded host's stall between grant and the token read made 200 ms fail with "no fencing token").
        @DistributedLock(key = "short-redlock", leaseTime = "1s", redlock = true)
        public void outliveRedLockLease() {
            org.awaitility.Awaitility.await()
                    .atMost(Waits.GRANTED)
                    .until(() -> !locks.lock(LockType.REENTRANT, true, "short-redlock", "probe")
                            .isLocked());
        }

        @DistributedLock(key = "short", leaseTime = "1s")
        public void outliveLease() {
            org.awaitility.Awaitility.await()
                    .atMost(Waits.GRANTED)
                    .until(() -> !locks.lock(LockType.REENTRANT, false, "short", "probe")
                            .isLocked());
        }
    }
}
