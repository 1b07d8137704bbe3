package dev.distlock.spring;

import static dev.distlock.spring.HoldChecks.lockedInRedis;
import static dev.distlock.spring.HoldChecks.nobodyElseTakesItUntilDone;
import static dev.distlock.spring.HoldChecks.takeElsewhereSoon;
import static dev.distlock.spring.HoldChecks.tryElsewhere;
import static dev.distlock.spring.HoldChecks.waitedForInRedis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code @DistributedLock} on methods returning CompletionStage/CompletableFuture: the lock is taken
 * before the method runs, without blocking the caller, and held until the returned stage completes.
 */
@BehaviourTest
class AsyncMethodTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** A second, independent client: stands for another instance of the service. */
    static LockClient otherInstance;

    @BeforeAll
    static void connectOtherInstance() {
        otherInstance = LockClient.create(RedisURI.create(redis.server().uri()));
    }

    @AfterAll
    static void closeOtherInstance() {
        otherInstance.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "distlock.wait-time=" + HoldChecks.WAIT_GRANTED)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Jobs.class);
    }

    @Test
    void holdsTheLockUntilTheReturnedFutureCompletesTwoSecondsLaterThenFreesIt() {
        runner().run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            long started = System.nanoTime();
            CompletableFuture<Long> call = jobs.later("order:1", Duration.ofSeconds(2));
            assertThat(call).isNotDone(); // handed back at once: the caller did not wait for the lock or the work
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> jobs.seen().invocations.get() == 1);
            assertThat(jobs.seen().invokedOn.get())
                    .as("invoked on the starter's threads (not the caller's, the Redis client's or the common pool)")
                    .startsWith("distlock-invoke-");

            // Another instance cannot take the lock while the future is pending, at 0.5 s, 1 s, 1.5 s...
            nobodyElseTakesItUntilDone(otherInstance, "order:1", call);
            long token = call.get();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(1900));
            assertThat(token)
                    .as("LockContext.currentToken() inside the method body")
                    .isPositive();
            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "order:1"));
            tryElsewhere(otherInstance, "order:1").orElseThrow().unlock();

            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(LockMetrics.ACQUIRE)
                            .tags("name", "Jobs.later", "outcome", "acquired")
                            .timer()
                            .count())
                    .as("counted once, by the starter (not again by the listener)")
                    .isEqualTo(1);
            assertThat(registry.get(LockMetrics.HELD)
                            .tags("name", "Jobs.later")
                            .timer()
                            .count())
                    .isEqualTo(1);
            assertThat(registry.get(LockMetrics.HELD)
                            .tags("name", "Jobs.later")
                            .timer()
                            .totalTime(TimeUnit.MILLISECONDS))
                    .as("held until the future completed")
                    .isGreaterThanOrEqualTo(1900);
            assertThat(context.getBean(ActiveHolds.class).size()).isZero();
        });
    }

    /**
     * Cancelling a CompletableFuture does not stop work already running. So once the method was invoked, a
     * caller's cancel ends only its own wait: the lock stays held until the method's stage completes. Before,
     * the cancel released the lock at once, and another instance could run beside work still going on.
     */
    @Test
    void cancellingTheReturnedFutureWhileTheMethodRunsKeepsTheLockUntilItsStageEnds() {
        runner().run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<String> call = jobs.pending("order:2");
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.seen().stage.get() != null);
            assertThat(lockedInRedis(redis.server(), "order:2")).isTrue();
            assertThat(context.getBean(ActiveHolds.class).list())
                    .singleElement()
                    .satisfies(hold -> assertThat(hold.ownerThread()).contains("owned by its lock handle"));

            assertThat(call.cancel(true)).isTrue();

            assertThat(call).isCancelled();
            assertThat(jobs.seen().stage.get())
                    .as("the method's own stage goes on")
                    .isNotDone();
            assertThat(tryElsewhere(otherInstance, "order:2"))
                    .as("still held for the running work")
                    .isEmpty();
            assertThat(lockedInRedis(redis.server(), "order:2")).isTrue();

            jobs.seen().stage.get().complete("done");

            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "order:2"));
            tryElsewhere(otherInstance, "order:2").orElseThrow().unlock();
            assertThat(context.getBean(ActiveHolds.class).size()).isZero();
        });
    }

    @Test
    void cancellingTheReturnedFutureWhileItWaitsNeverRunsTheMethodAndLeavesNothingInRedis() {
        runner().run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LockHandle elsewhere = tryElsewhere(otherInstance, "order:3").orElseThrow();
            CompletableFuture<String> call = jobs.patient("order:3");
            // it waits: in Redis and on the wake-up channel
            await().atMost(Duration.ofSeconds(10)).until(() -> waitedForInRedis(redis.server(), "order:3"));
            assertThat(call).isNotDone();
            call.cancel(true);
            elsewhere.unlock();

            // Nothing was left behind: the lock is free for another instance, and stays free.
            LockHandle next = takeElsewhereSoon(otherInstance, "order:3");
            next.unlock();
            assertThat(lockedInRedis(redis.server(), "order:3")).isFalse();
            assertThat(jobs.seen().invocations.get()).isZero();
            assertThat(context.getBean(MeterRegistry.class)
                            .get(LockMetrics.ACQUIRE)
                            .tags("name", "Jobs.patient", "outcome", "cancelled")
                            .timer()
                            .count())
                    .isEqualTo(1);
        });
    }

    @Test
    void aStageThatFailsReleasesAndTheCallerGetsItsException() {
        runner().run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<String> call = jobs.pending("order:4");
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.seen().stage.get() != null);
            jobs.seen().stage.get().completeExceptionally(new IllegalStateException("payment declined"));

            assertThatThrownBy(call::get)
                    .isInstanceOf(ExecutionException.class)
                    .hasRootCauseMessage("payment declined");
            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "order:4"));
        });
    }

    @Test
    void aMethodThatThrowsBeforeReturningItsStageReleasesAndFailsTheFuture() {
        runner().run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<String> call = jobs.throwing("order:5").toCompletableFuture();
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasRootCauseMessage("no stock");
            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "order:5"));
            assertThat(context.getBean(ActiveHolds.class).size()).isZero();
        });
    }

    /**
     * Calls that find the lock busy start no thread each. The bookkeeping after such a call ran on
     * CompletableFuture's default delayed executor, which on machines of up to 2 CPUs (like CI's) starts a
     * thread per task; on larger machines this test cannot tell.
     */
    @Test
    void busyCallsStartNoThreadEach() {
        runner().withPropertyValues("distlock.wait-time=0s").run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LockHandle elsewhere = tryElsewhere(otherInstance, "order:busy").orElseThrow();
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            try {
                jobs.skipping("order:busy").get(10, TimeUnit.SECONDS); // warm: the invoking thread exists
                long before = threads.getTotalStartedThreadCount();
                for (int i = 0; i < 200; i++) {
                    assertThat(jobs.skipping("order:busy").get(10, TimeUnit.SECONDS))
                            .isNull();
                }
                Thread.sleep(1500); // the bookkeeping runs 1 s after each call
                assertThat(threads.getTotalStartedThreadCount() - before)
                        .as("threads started by 200 busy calls")
                        .isLessThan(50);
            } finally {
                elsewhere.unlock();
            }
        });
    }

    @Test
    void aBusyLockFailsTheFutureWithLockAcquisitionExceptionOrSkips() {
        runner().withPropertyValues("distlock.wait-time=" + HoldChecks.WAIT_RUNS_OUT)
                .run(context -> {
                    Jobs jobs = context.getBean(Jobs.class);
                    LockHandle elsewhere =
                            tryElsewhere(otherInstance, "order:6").orElseThrow();
                    try {
                        CompletableFuture<String> call = jobs.pending("order:6");
                        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                                .isInstanceOf(ExecutionException.class)
                                .cause()
                                .isInstanceOf(LockAcquisitionException.class)
                                .hasMessageContaining("Lock 'order:6' for Jobs.pending(String) is held elsewhere");
                        assertThat(jobs.skipping("order:6").get(10, TimeUnit.SECONDS))
                                .isNull();
                        assertThat(jobs.skippingOptional("order:6").get(10, TimeUnit.SECONDS))
                                .isEmpty();
                        assertThat(jobs.seen().invocations.get()).isZero();
                    } finally {
                        elsewhere.unlock();
                    }
                    assertThat(context
                                    .getBean(MeterRegistry.class)
                                    .get(LockMetrics.ACQUIRE)
                                    .tags("outcome", "timeout")
                                    .timers()
                                    .stream()
                                    .mapToLong(t -> t.count())
                                    .sum())
                            .isEqualTo(3);
                });
    }

    @Test
    void aKeyThatDoesNotEvaluateFailsTheFutureInsteadOfThrowingAtTheCaller() {
        runner().run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<String> call = jobs.pending(null);
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Jobs.pending(String)");
            assertThat(jobs.seen().invocations.get()).isZero();
        });
    }

    /**
     * A stage cancelled for the loss has no result: the caller fails with LockLeaseExpiredException even with
     * throw-on-lease-lost=false (which passes on the results of work that ran to its end).
     */
    @ParameterizedTest(name = "throw-on-lease-lost={0}")
    @ValueSource(booleans = {true, false})
    void aLostLeaseCancelsTheMethodsStageWithInterruptAndFailsTheCallerWithLeaseExpired(boolean throwOnLeaseLost) {
        runner().withPropertyValues(
                        "distlock.on-lease-lost=interrupt",
                        "distlock.watchdog-lease=600ms",
                        "distlock.throw-on-lease-lost=" + throwOnLeaseLost)
                .run(context -> {
                    Jobs jobs = context.getBean(Jobs.class);
                    CompletableFuture<String> call = jobs.pending("order:7");
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> jobs.seen().stage.get() != null);
                    otherInstance
                            .getLock("order:7")
                            .forceUnlock(); // an operator deletes it: the watchdog finds it gone

                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> jobs.seen().stage.get().isCancelled());
                    assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                            .isInstanceOf(ExecutionException.class)
                            .cause()
                            .isInstanceOf(LockLeaseExpiredException.class);
                });
    }

    @Test
    void withoutInterruptALostLeaseLetsTheStageFinishAndFailsTheCallerWithLeaseExpired() {
        runner().withPropertyValues("distlock.watchdog-lease=600ms").run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CompletableFuture<String> call = jobs.pending("order:8");
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.seen().stage.get() != null);
            otherInstance.getLock("order:8").forceUnlock();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> context.getBean(MeterRegistry.class)
                                    .find(LockMetrics.LOST)
                                    .counter()
                            != null);

            assertThat(jobs.seen().stage.get()).isNotDone();
            jobs.seen().stage.get().complete("done");
            assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(LockLeaseExpiredException.class);
        });
    }

    @Test
    void aThousandConcurrentCallsOnOneKeyRunOneAtATimeOnABoundedNumberOfThreads() {
        runner().withPropertyValues("distlock.wait-time=5m").run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            int threadsBefore = Thread.activeCount();
            AtomicInteger maxThreads = new AtomicInteger(threadsBefore);
            List<CompletableFuture<Integer>> calls = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                calls.add(jobs.exclusive("stock:1"));
                maxThreads.accumulateAndGet(Thread.activeCount(), Math::max);
            }
            CompletableFuture<Void> all = CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new));
            while (!all.isDone()) {
                maxThreads.accumulateAndGet(Thread.activeCount(), Math::max);
                Thread.sleep(50); // sampling the thread count, not waiting for a condition
            }
            all.get();
            assertThat(jobs.seen().maxInside.get())
                    .as("callers inside the lock at once")
                    .isEqualTo(1);
            assertThat(jobs.seen().completed.get()).isEqualTo(1000);
            assertThat(maxThreads.get() - threadsBefore)
                    .as("threads added while 1,000 calls waited")
                    .isLessThan(50);
            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "stock:1"));
        });
    }

    /** What the methods saw; read through {@link Jobs#seen()}, since the bean is a class proxy whose own fields stay empty. */
    static class Seen {
        final AtomicInteger invocations = new AtomicInteger();
        final AtomicReference<String> invokedOn = new AtomicReference<>();
        final AtomicReference<CompletableFuture<String>> stage = new AtomicReference<>();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger maxInside = new AtomicInteger();
        final AtomicInteger completed = new AtomicInteger();
    }

    @Test
    void aMultiKeyMethodSeesEveryKeysOwnTokenInLockContext() {
        runner().run(context -> {
            CompletableFuture<Void> done = new CompletableFuture<>();
            CompletableFuture<Map<String, Long>> call =
                    context.getBean(Jobs.class).tokensOf("acct:a", "acct:b", done);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> HoldChecks.lockedInRedis(redis.server(), "acct:a")
                            && HoldChecks.lockedInRedis(redis.server(), "acct:b"));
            Map<String, Long> inRedis = Map.of(
                    "acct:a", HoldChecks.tokenInRedis(redis.server(), "acct:a"),
                    "acct:b", HoldChecks.tokenInRedis(redis.server(), "acct:b"));
            done.complete(null);
            Map<String, Long> tokens = call.get(10, TimeUnit.SECONDS);
            assertThat(tokens)
                    .as("each key's token, as Redis holds it for that key")
                    .containsExactlyInAnyOrderEntriesOf(inRedis);
            assertThat(tokens.get("acct:a")).isNotEqualTo(tokens.get("acct:b"));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> !HoldChecks.lockedInRedis(redis.server(), "acct:a")
                            && !HoldChecks.lockedInRedis(redis.server(), "acct:b"));
        });
    }

    public static class Jobs {
        private final Seen seen = new Seen();
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "jobs-timer");
            t.setDaemon(true);
            return t;
        });

        public Seen seen() {
            return seen;
        }

        /** Completes {@code after} later with the fencing token the method body saw. */
        @DistributedLock(key = "#key")
        public CompletableFuture<Long> later(String key, Duration after) {
            seen.invocations.incrementAndGet();
            seen.invokedOn.set(Thread.currentThread().getName());
            long token = LockContext.currentToken();
            return CompletableFuture.supplyAsync(
                    () -> token, CompletableFuture.delayedExecutor(after.toMillis(), TimeUnit.MILLISECONDS));
        }

        /** Holds both keys until {@code done}; yields the tokens LockContext gave. */
        @DistributedLock(keys = {"#a", "#b"})
        public CompletableFuture<Map<String, Long>> tokensOf(String a, String b, CompletableFuture<Void> done) {
            Map<String, Long> tokens = LockContext.currentTokens();
            return done.thenApply(v -> tokens);
        }

        /** Returns a stage the test completes. */
        @DistributedLock(key = "#key")
        public CompletableFuture<String> pending(String key) {
            seen.invocations.incrementAndGet();
            CompletableFuture<String> work = new CompletableFuture<>();
            seen.stage.set(work);
            return work;
        }

        @DistributedLock(key = "#key", waitTime = "30s")
        public CompletableFuture<String> patient(String key) {
            seen.invocations.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(key = "#key")
        public CompletionStage<String> throwing(String key) {
            throw new IllegalStateException("no stock");
        }

        @DistributedLock(key = "#key", onFailure = OnLockFailure.SKIP)
        public CompletableFuture<String> skipping(String key) {
            seen.invocations.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(key = "#key", onFailure = OnLockFailure.SKIP)
        public CompletableFuture<Optional<String>> skippingOptional(String key) {
            seen.invocations.incrementAndGet();
            return CompletableFuture.completedFuture(Optional.of("ran"));
        }

        /** Inside the lock from its invocation until its stage completes, 1 ms later, on one timer thread. */
        @DistributedLock(key = "#key")
        public CompletableFuture<Integer> exclusive(String key) {
            int now = seen.inside.incrementAndGet();
            seen.maxInside.accumulateAndGet(now, Math::max);
            CompletableFuture<Integer> work = new CompletableFuture<>();
            timer.schedule(
                    () -> {
                        seen.inside.decrementAndGet();
                        seen.completed.incrementAndGet();
                        work.complete(now);
                    },
                    1,
                    TimeUnit.MILLISECONDS);
            return work;
        }
    }
}
