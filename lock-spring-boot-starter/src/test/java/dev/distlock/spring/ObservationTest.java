package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockClient;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockObservationAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * With Spring Boot's ObservationRegistry, a Micrometer Tracing bridge (the test tracer) and a
 * MeterRegistry, one instrumentation gives both the wait and hold spans and the lock meters.
 */
@BehaviourTest
class ObservationTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    static final SimpleTracer TRACER = new SimpleTracer();

    @Test
    void waitAndHoldAreSpansTaggedByNameTypeAndOutcomeWithTheWorkNestedInTheHold() {
        TRACER.getSpans().clear();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ObservationAutoConfiguration.class,
                        MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class,
                        DataRedisAutoConfiguration.class,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockObservationAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "distlock.wait-time=" + HoldChecks.WAIT_RUNS_OUT)
                .withBean(DefaultTracingObservationHandler.class, () -> new DefaultTracingObservationHandler(TRACER))
                .withBean(Orders.class)
                .run(context -> {
                    assertThat(context).hasSingleBean(ObservationRegistry.class);
                    context.getBean(Orders.class).pay(7);

                    SimpleSpan wait = span("lock wait orders");
                    SimpleSpan held = span("lock held orders");
                    SimpleSpan work = span("charge card");
                    assertThat(wait.getTags())
                            .containsEntry("name", "orders")
                            .containsEntry("type", "REENTRANT")
                            .containsEntry("outcome", "acquired");
                    assertThat(held.getTags()).containsEntry("name", "orders").containsEntry("type", "REENTRANT");
                    assertThat(work.getParentId())
                            .as("the work runs inside the hold span")
                            .isEqualTo(held.getSpanId());
                    assertThat(TRACER.getSpans())
                            .allSatisfy(s -> assertThat(s.getTags().values()).noneMatch(v -> v.contains("order:7")));

                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get(LockMetrics.ACQUIRE)
                                    .tags("name", "orders", "type", "REENTRANT", "outcome", "acquired")
                                    .timer()
                                    .count())
                            .as("the meter handler of the same observation")
                            .isEqualTo(1);
                    assertThat(meters.get(LockMetrics.HELD)
                                    .tags("name", "orders")
                                    .timer()
                                    .count())
                            .isEqualTo(1);

                    try (LockClient otherInstance =
                            LockClient.create(RedisURI.create(redis.server().uri()))) {
                        var busy = otherInstance.getLock("order:8");
                        busy.lock();
                        try {
                            assertThatThrownBy(
                                            () -> context.getBean(Orders.class).pay(8))
                                    .isInstanceOf(LockAcquisitionException.class);
                        } finally {
                            busy.unlock();
                        }
                    }
                    assertThat(TRACER.getSpans())
                            .filteredOn(s -> s.getName().equals("lock wait orders"))
                            .anySatisfy(s -> assertThat(s.getTags()).containsEntry("outcome", "timeout"));
                    assertThat(meters.get(LockMetrics.ACQUIRE)
                                    .tags("name", "orders", "outcome", "timeout")
                                    .timer()
                                    .count())
                            .isEqualTo(1);
                });
    }

    /**
     * An application's observation handler that fails as the hold's observation starts: the call fails with
     * its exception, and the lock it had just been granted is given back. Before, the lock stayed taken by
     * nobody (the watchdog renewing it), and an async call's future never completed.
     */
    @Test
    void anObservationHandlerFailingAsTheHoldStartsLeavesTheLockFree() {
        withHandler(FailsOnHold.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(() -> orders.pay(21)).hasMessage("handler broke");
            assertThat(orders.payLater(22))
                    .failsWithin(java.time.Duration.ofSeconds(10))
                    .withThrowableThat()
                    .havingRootCause()
                    .withMessage("handler broke");
            try (LockClient otherInstance =
                    LockClient.create(RedisURI.create(redis.server().uri()))) {
                for (String key : List.of("order:21", "order:22")) {
                    assertThat(otherInstance.getLock(key).tryLock(Waits.GRANTED))
                            .isTrue();
                    otherInstance.getLock(key).unlock();
                }
            }
        });
    }

    /**
     * An application's observation handler that fails as a lock observation stops: async callers still get
     * their outcome. Before, the callback that should complete their future ended in the handler's exception.
     */
    @Test
    void anObservationHandlerFailingAsAnObservationStopsStillCompletesAsyncCalls() {
        withHandler(FailsOnStop.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.payLater(31)).succeedsWithin(java.time.Duration.ofSeconds(10));
            try (LockClient otherInstance =
                    LockClient.create(RedisURI.create(redis.server().uri()))) {
                var busy = otherInstance.getLock("order:32");
                busy.lock();
                try {
                    assertThat(orders.payLater(32))
                            .failsWithin(java.time.Duration.ofSeconds(10))
                            .withThrowableThat()
                            .withCauseInstanceOf(LockAcquisitionException.class);
                } finally {
                    busy.unlock();
                }
                assertThat(otherInstance.getLock("order:31").tryLock(Waits.GRANTED))
                        .isTrue();
                otherInstance.getLock("order:31").unlock();
            }
        });
    }

    /** Locks observed through Spring Boot's ObservationRegistry, with {@code handler} among its handlers. */
    private static ApplicationContextRunner withHandler(
            Class<? extends io.micrometer.observation.ObservationHandler<?>> handler) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        ObservationAutoConfiguration.class,
                        DataRedisAutoConfiguration.class,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockObservationAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "distlock.wait-time=" + HoldChecks.WAIT_RUNS_OUT)
                .withBean(handler)
                .withBean(Orders.class);
    }

    /** An observation handler with a bug: it fails when a hold's observation stops, or a wait's that timed out. */
    static class FailsOnStop implements io.micrometer.observation.ObservationHandler<Observation.Context> {
        @Override
        public void onStop(Observation.Context context) {
            var outcome = context.getLowCardinalityKeyValue(LockMetrics.OUTCOME);
            if (LockMetrics.HELD.equals(context.getName())
                    || (LockMetrics.ACQUIRE.equals(context.getName())
                            && outcome != null
                            && LockMetrics.TIMEOUT.equals(outcome.getValue()))) {
                throw new IllegalStateException("handler broke on stop");
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    /** An observation handler with a bug: it fails when the lock-held observation starts. */
    static class FailsOnHold implements io.micrometer.observation.ObservationHandler<Observation.Context> {
        @Override
        public void onStart(Observation.Context context) {
            if (LockMetrics.HELD.equals(context.getName())) {
                throw new IllegalStateException("handler broke");
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    private static SimpleSpan span(String name) {
        List<SimpleSpan> found =
                TRACER.getSpans().stream().filter(s -> name.equals(s.getName())).toList();
        assertThat(found)
                .as(
                        "spans named '%s' among %s",
                        name,
                        TRACER.getSpans().stream().map(SimpleSpan::getName).toList())
                .hasSize(1);
        return found.get(0);
    }

    public static class Orders {
        private final ObservationRegistry observations;

        public Orders(ObservationRegistry observations) {
            this.observations = observations;
        }

        @DistributedLock(key = "'order:' + #id", name = "orders")
        public void pay(long id) {
            Observation.createNotStarted("charge", observations)
                    .contextualName("charge card")
                    .observe(() -> {});
        }

        @DistributedLock(key = "'order:' + #id", name = "orders")
        public java.util.concurrent.CompletableFuture<String> payLater(long id) {
            return java.util.concurrent.CompletableFuture.completedFuture("paid");
        }
    }
}
