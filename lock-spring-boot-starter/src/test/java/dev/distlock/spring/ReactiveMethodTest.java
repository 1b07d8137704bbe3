package dev.distlock.spring;

import static dev.distlock.spring.HoldChecks.lockedInRedis;
import static dev.distlock.spring.HoldChecks.nobodyElseTakesItUntilDone;
import static dev.distlock.spring.HoldChecks.takeElsewhereSoon;
import static dev.distlock.spring.HoldChecks.tokenInRedis;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@code @DistributedLock} on methods returning Mono or Flux: each subscription acquires without
 * blocking, subscribes to the method's publisher once held, and releases exactly once on complete,
 * error or cancel.
 */
@BehaviourTest
class ReactiveMethodTest {

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
                .withBean(Streams.class);
    }

    private static long held(MeterRegistry registry, String name) {
        return registry.get(LockMetrics.HELD).tags("name", name).timer().count();
    }

    @Test
    void aMonoTakesTheLockOnSubscriptionAndHoldsItUntilItCompletesTwoSecondsLater() {
        runner().run(context -> {
            Streams streams = context.getBean(Streams.class);
            Mono<Long> later = streams.later("r:1", Duration.ofSeconds(2));
            assertThat(streams.seen().invocations.get())
                    .as("nothing happens before subscription")
                    .isZero();
            assertThat(lockedInRedis(redis.server(), "r:1")).isFalse();

            CompletableFuture<Long> result = later.toFuture();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> streams.seen().invocations.get() == 1);
            nobodyElseTakesItUntilDone(otherInstance, "r:1", result);
            assertThat(result.get())
                    .as("the token in the Reactor Context is the one LockContext gave the method body")
                    .isEqualTo(streams.seen().bodyToken.get())
                    .isPositive();
            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "r:1"));
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(held(registry, "Streams.later")).isEqualTo(1);
            assertThat(registry.get(LockMetrics.HELD)
                            .tags("name", "Streams.later")
                            .timer()
                            .totalTime(TimeUnit.MILLISECONDS))
                    .isGreaterThanOrEqualTo(1900);
        });
    }

    /**
     * A subscription cancelled just as its grant arrives: the grant completed the acquire future, and Reactor,
     * finding the subscription cancelled, discards the value instead of passing it on. A discarded grant must be
     * released; before, nothing did, and the watchdog kept it held for as long as the application ran. The
     * cancels land at random moments across the acquire, so some of them hit that instant.
     */
    @Test
    void subscriptionsCancelledAtAnyMomentOfTheAcquireLeaveNoLockHeld() {
        runner().run(context -> {
            Streams streams = context.getBean(Streams.class);
            for (int i = 0; i < 1500; i++) {
                Disposable subscription = streams.never("race:" + i).subscribe();
                long until = System.nanoTime()
                        + java.util.concurrent.ThreadLocalRandom.current().nextLong(600_000);
                while (System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
                subscription.dispose();
            }
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> redis.server()
                            .query("EVAL", "return #redis.call('KEYS', ARGV[1])", "0", "lock:{race:*}")
                            .equals(":0"));
            assertThat(context.getBean(ActiveHolds.class).list()).isEmpty();
        });
    }

    @Test
    void aFluxReleasesExactlyOnceWhenItCompletesFailsOrIsCancelled() {
        runner().run(context -> {
            Streams streams = context.getBean(Streams.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);

            assertThat(streams.items("r:2", Flux.just(1, 2, 3)).collectList().block(Duration.ofSeconds(10)))
                    .containsExactly(1, 2, 3);
            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "r:2"));
            assertThat(held(registry, "Streams.items")).isEqualTo(1);

            Flux<Integer> failing =
                    streams.items("r:2", Flux.concat(Flux.just(1), Flux.error(new IllegalStateException("disk full"))));
            assertThatThrownBy(() -> failing.collectList().block(Duration.ofSeconds(10)))
                    .hasMessage("disk full");
            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "r:2"));
            assertThat(held(registry, "Streams.items")).isEqualTo(2);

            // take(2) cancels the endless source after two items: the cancel path releases.
            assertThat(streams.items("r:2", Flux.interval(Duration.ofMillis(50)).map(Long::intValue))
                            .take(2)
                            .collectList()
                            .block(Duration.ofSeconds(10)))
                    .containsExactly(0, 1);
            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "r:2"));
            await().atMost(Duration.ofSeconds(5)).until(() -> held(registry, "Streams.items") == 3);

            tryElsewhere(otherInstance, "r:2").orElseThrow().unlock();
            assertThat(context.getBean(ActiveHolds.class).size()).isZero();
        });
    }

    @Test
    void disposingAMonoWhileItRunsReleasesTheLock() {
        runner().run(context -> {
            Streams streams = context.getBean(Streams.class);
            Disposable running = streams.never("r:3").subscribe();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> streams.seen().subscribed.get() == 1);
            assertThat(lockedInRedis(redis.server(), "r:3")).isTrue();

            running.dispose();

            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "r:3"));
            assertThat(streams.seen().cancelled.get()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> held(context.getBean(MeterRegistry.class), "Streams.never") == 1);
        });
    }

    @Test
    void disposingWhileWaitingNeverRunsTheMethodAndLeavesNothingInRedis() {
        runner().run(context -> {
            Streams streams = context.getBean(Streams.class);
            LockHandle elsewhere = tryElsewhere(otherInstance, "r:4").orElseThrow();
            Disposable waiting = streams.patient("r:4").subscribe();
            // it waits: in Redis and on the wake-up channel
            await().atMost(Duration.ofSeconds(10)).until(() -> waitedForInRedis(redis.server(), "r:4"));
            waiting.dispose();
            elsewhere.unlock();

            takeElsewhereSoon(otherInstance, "r:4").unlock();
            assertThat(streams.seen().invocations.get()).isZero();
            assertThat(lockedInRedis(redis.server(), "r:4")).isFalse();
        });
    }

    @Test
    void aBusyLockFailsTheMonoWithLockAcquisitionExceptionOrCompletesEmptyWithSkip() {
        runner().withPropertyValues("distlock.wait-time=" + HoldChecks.WAIT_RUNS_OUT)
                .run(context -> {
                    Streams streams = context.getBean(Streams.class);
                    LockHandle elsewhere = tryElsewhere(otherInstance, "r:5").orElseThrow();
                    try {
                        assertThatThrownBy(() ->
                                        streams.later("r:5", Duration.ZERO).block(Duration.ofSeconds(10)))
                                .isInstanceOf(LockAcquisitionException.class)
                                .hasMessageContaining(
                                        "Lock 'r:5' for Streams.later(String, Duration) is held elsewhere");
                        assertThat(streams.skipping("r:5").collectList().block(Duration.ofSeconds(10)))
                                .isEmpty();
                        assertThat(streams.seen().invocations.get()).isZero();
                    } finally {
                        elsewhere.unlock();
                    }
                });
    }

    @Test
    void everySubscriptionTakesTheLockAndCallsTheMethodAnew() {
        runner().run(context -> {
            Streams streams = context.getBean(Streams.class);
            Mono<Long> once = streams.later("r:6", Duration.ZERO);
            Long first = once.block(Duration.ofSeconds(10));
            Long second = once.block(Duration.ofSeconds(10));
            assertThat(streams.seen().invocations.get()).isEqualTo(2);
            assertThat(second).as("a new grant, a larger fencing token").isGreaterThan(first);
        });
    }

    /**
     * The method runs off the Redis client's I/O thread that granted the lock: there a method calling Redis
     * synchronously (as a Kotlin suspend function may before it first suspends) would stall every reply of
     * the application's client, or wait for a reply only that thread could read.
     */
    @Test
    void theMethodRunsOffTheRedisClientsIoThreadSoItMayCallRedisSynchronously() {
        runner().run(context -> {
            Streams streams = context.getBean(Streams.class);
            StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
            template.opsForValue().set("greeting", "hello");
            List<Mono<String>> calls = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                calls.add(
                        streams.blocking("b:" + i, () -> template.opsForValue().get("greeting")));
            }
            assertThat(Flux.merge(calls).collectList().block(Duration.ofSeconds(30)))
                    .hasSize(16)
                    .containsOnly("hello");
            assertThat(streams.seen().threads).allMatch(t -> t.startsWith("distlock-invoke-"));
        });
    }

    /**
     * With on-lease-lost=interrupt the work is raced against the hold's lease-lost signal; work that ends first
     * stops waiting for that signal. Stopping must not try to cancel the signal itself, which refuses (a
     * read-only stage): Reactor logged each refusal at ERROR, once per call.
     */
    @Test
    @org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
    void workEndingFirstInInterruptModeLogsNoError(org.springframework.boot.test.system.CapturedOutput output) {
        runner().withPropertyValues("distlock.on-lease-lost=interrupt").run(context -> {
            Streams streams = context.getBean(Streams.class);
            assertThat(streams.items("r:8", Flux.just(1, 2)).collectList().block(Duration.ofSeconds(10)))
                    .containsExactly(1, 2);
            assertThat(streams.later("r:8", Duration.ZERO).block(Duration.ofSeconds(10)))
                    .isPositive();
            await().atMost(Duration.ofSeconds(5)).until(() -> !lockedInRedis(redis.server(), "r:8"));
            assertThat(output.getAll())
                    .doesNotContain("onErrorDropped")
                    .doesNotContain("UnsupportedOperationException");
        });
    }

    /**
     * A publisher cancelled for the loss has no result: it fails with LockLeaseExpiredException even with
     * throw-on-lease-lost=false; completing empty would pass the stopped work off as done.
     */
    @ParameterizedTest(name = "throw-on-lease-lost={0}")
    @ValueSource(booleans = {true, false})
    void aLostLeaseCancelsTheFluxWithInterruptAndFailsItWithLeaseExpired(boolean throwOnLeaseLost) {
        runner().withPropertyValues(
                        "distlock.on-lease-lost=interrupt",
                        "distlock.watchdog-lease=600ms",
                        "distlock.throw-on-lease-lost=" + throwOnLeaseLost)
                .run(context -> {
                    Streams streams = context.getBean(Streams.class);
                    CompletableFuture<List<Integer>> result = streams.items(
                                    "r:7",
                                    Flux.<Integer>never()
                                            .doOnCancel(() ->
                                                    streams.seen().cancelled.incrementAndGet()))
                            .collectList()
                            .toFuture();
                    await().atMost(Duration.ofSeconds(10)).until(() -> lockedInRedis(redis.server(), "r:7"));
                    otherInstance.getLock("r:7").forceUnlock(); // an operator deletes it: the watchdog finds it gone

                    assertThatThrownBy(() -> result.get(10, TimeUnit.SECONDS))
                            .isInstanceOf(ExecutionException.class)
                            .cause()
                            .isInstanceOf(LockLeaseExpiredException.class);
                    assertThat(streams.seen().cancelled.get()).isEqualTo(1);
                });
    }

    @Test
    void aMultiKeyMonoSeesEveryKeysOwnTokenInTheReactorContextAndLockContext() {
        runner().run(context -> {
            Sinks.Empty<Void> done = Sinks.empty();
            CompletableFuture<List<Map<String, Long>>> call = context.getBean(Streams.class)
                    .tokensOf("acct:c", "acct:d", done.asMono())
                    .toFuture();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> lockedInRedis(redis.server(), "acct:c") && lockedInRedis(redis.server(), "acct:d"));
            Map<String, Long> expected = Map.of(
                    "acct:c", tokenInRedis(redis.server(), "acct:c"),
                    "acct:d", tokenInRedis(redis.server(), "acct:d"));
            done.tryEmitEmpty();
            List<Map<String, Long>> seen = call.get(10, TimeUnit.SECONDS);
            assertThat(seen.get(0)).as("LockContext while the method ran").isEqualTo(expected);
            assertThat(seen.get(1)).as("ReactiveLockContext in the publisher").isEqualTo(expected);
            assertThat(expected.get("acct:c")).isNotEqualTo(expected.get("acct:d"));
        });
    }

    /** What the methods saw; read through {@link Streams#seen()}, since the bean is a class proxy whose own fields stay empty. */
    static class Seen {
        final AtomicInteger invocations = new AtomicInteger();
        final AtomicInteger subscribed = new AtomicInteger();
        final AtomicInteger cancelled = new AtomicInteger();
        final AtomicLong bodyToken = new AtomicLong();
        final Set<String> threads = ConcurrentHashMap.newKeySet();
    }

    public static class Streams {
        /** Holds both keys until {@code done}; the tokens LockContext gave at invocation, then the Reactor Context's. */
        @DistributedLock(keys = {"#a", "#b"})
        public Mono<List<Map<String, Long>>> tokensOf(String a, String b, Mono<Void> done) {
            Map<String, Long> atInvocation = LockContext.currentTokens();
            return ReactiveLockContext.currentTokens()
                    .flatMap(inPublisher -> done.thenReturn(List.of(atInvocation, inPublisher)));
        }

        private final Seen seen = new Seen();

        public Seen seen() {
            return seen;
        }

        /** Emits, {@code after} later, the fencing token found in the Reactor Context. */
        @DistributedLock(key = "#key")
        public Mono<Long> later(String key, Duration after) {
            seen.invocations.incrementAndGet();
            seen.bodyToken.set(LockContext.currentToken());
            return Mono.delay(after).then(ReactiveLockContext.currentToken());
        }

        /** Calls {@code inBody} (blocking) while the method builds its publisher. */
        @DistributedLock(key = "#key")
        public Mono<String> blocking(String key, Supplier<String> inBody) {
            seen.threads.add(Thread.currentThread().getName());
            return Mono.just(inBody.get());
        }

        @DistributedLock(key = "#key")
        public Flux<Integer> items(String key, Flux<Integer> source) {
            seen.invocations.incrementAndGet();
            return source;
        }

        @DistributedLock(key = "#key")
        public Mono<String> never(String key) {
            return Mono.<String>never()
                    .doOnSubscribe(s -> seen.subscribed.incrementAndGet())
                    .doOnCancel(() -> seen.cancelled.incrementAndGet());
        }

        @DistributedLock(key = "#key", waitTime = "30s")
        public Mono<String> patient(String key) {
            seen.invocations.incrementAndGet();
            return Mono.just("ran");
        }

        @DistributedLock(key = "#key", onFailure = OnLockFailure.SKIP)
        public Flux<String> skipping(String key) {
            seen.invocations.incrementAndGet();
            return Flux.just("ran");
        }
    }
}
