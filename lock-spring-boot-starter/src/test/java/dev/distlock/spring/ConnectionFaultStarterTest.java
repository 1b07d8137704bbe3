package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockUnavailableException;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Annotated calls through a {@link FaultRelay} between the application's own Lettuce client
 * (configured only by {@code spring.data.redis.*}, whose at-least-once delivery we do not control)
 * and Redis: a grant whose reply is lost runs the method once and leaves nothing held, a release
 * whose reply is lost does not fail the call as a lost lease, and a
 * black-holed network (connections open, nothing answered; unlike the paused process of
 * {@link RedisUnavailableTest}) fails the call within its wait time even though
 * {@code spring.data.redis.timeout} is a minute.
 */
@SlowTest
class ConnectionFaultStarterTest {

    private RedisServer server;
    private FaultRelay relay;

    @BeforeEach
    void start() {
        server = RedisServer.start();
        relay = FaultRelay.to(server);
    }

    @AfterEach
    void stop() {
        relay.close();
        server.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + relay.port(), "spring.data.redis.timeout=60s")
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(Orders.class);
    }

    @Test
    void blackHoledRedisFailsAnAnnotatedCallWithinItsWaitTimeAsUnavailable() {
        runner().run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.ship(1)).isEqualTo("shipped 1"); // connected, scripts loaded
            relay.blackHole();
            try {
                long start = System.nanoTime();
                Throwable failure = catchFailure(() -> orders.ship(2));
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(failure).isInstanceOf(LockUnavailableException.class).hasMessageContaining("did not answer");
                // waitTime 2 s + the documented 200 ms, generously: seconds, not the 60 s Lettuce time-out
                assertThat(took).isLessThan(Duration.ofMillis(2200).plusSeconds(3));
                assertThat(orders.runs()).isEqualTo(1);
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get(LockMetrics.ACQUIRE)
                                .tag(LockMetrics.OUTCOME, "unavailable")
                                .timer()
                                .count())
                        .isEqualTo(1);
            } finally {
                relay.heal();
            }
            // what was sent meanwhile reaches Redis now; a grant made then must be given back
            await("nothing held after heal")
                    .atMost(Duration.ofSeconds(15))
                    .until(() -> server.command("EXISTS", "lock:{order:2}").equals(":0"));
        });
    }

    @Test
    void annotatedCallWhoseGrantReplyIsLostRunsOnceAndLeavesNothingHeld() {
        runner().run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.ship(1)).isEqualTo("shipped 1");
            relay.holdReplies();
            CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> orders.shipPatiently(3));
            await("Redis granted the lock and its reply is held")
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() ->
                            server.command("EXISTS", "lock:{order:3}").equals(":1") && relay.pendingReplyBytes() > 0);
            relay.drop(FaultRelay.Drop.RST);

            try {
                assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("shipped 3");
                assertThat(orders.runs()).as("the method ran once").isEqualTo(2);
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(LockUnavailableException.class);
                assertThat(orders.runs())
                        .as("the method did not run without the lock")
                        .isEqualTo(1);
            }
            await("nothing held after the call")
                    .atMost(Duration.ofSeconds(15))
                    .until(() -> server.command("EXISTS", "lock:{order:3}").equals(":0"));
        });
    }

    @Test
    void annotatedCallWhoseReleaseReplyIsLostReturnsNormallyWithoutALossReport() {
        runner().run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.ship(1)).isEqualTo("shipped 1");
            CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> orders.shipThenHoldReplies(4, relay));
            await("Redis released the lock and its reply is held")
                    .atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(5))
                    .until(() -> orders.runs() == 2
                            && server.command("EXISTS", "lock:{order:4}").equals(":0")
                            && relay.pendingReplyBytes() > 0);
            relay.drop(FaultRelay.Drop.RST);

            assertThat(call.get(30, TimeUnit.SECONDS))
                    .as("no LockLeaseExpiredException for a release that happened")
                    .isEqualTo("shipped 4");
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find(LockMetrics.LOST).counters())
                    .as("no loss counted")
                    .allSatisfy(c -> assertThat(c.count()).isZero());
            assertThat(orders.ship(4)).as("the lock is free again").isEqualTo("shipped 4");
        });
    }

    private static Throwable catchFailure(Runnable call) {
        try {
            call.run();
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    public static class Orders {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        /** Its wait runs out in the black-holed test, so it is not long; granted elsewhere, on a loaded host too. */
        @DistributedLock(key = "'order:' + #orderId", waitTime = HoldChecks.WAIT_RUNS_OUT)
        public String ship(long orderId) {
            runs.incrementAndGet();
            return "shipped " + orderId;
        }

        /** Holds every reply from its last line on: the release's reply too. */
        @DistributedLock(key = "'order:' + #orderId", waitTime = HoldChecks.WAIT_GRANTED)
        public String shipThenHoldReplies(long orderId, FaultRelay relay) {
            runs.incrementAndGet();
            relay.holdReplies();
            return "shipped " + orderId;
        }

        @DistributedLock(key = "'order:' + #orderId", waitTime = "5s")
        public String shipPatiently(long orderId) {
            runs.incrementAndGet();
            return "shipped " + orderId;
        }
    }
}
