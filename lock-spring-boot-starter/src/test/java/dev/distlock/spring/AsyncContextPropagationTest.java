package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.integration.Slf4jThreadLocalAccessor;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.MDC;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code @DistributedLock} method returning a CompletionStage runs, once its lock is held, on a thread
 * of the starter's with its caller's context, as Micrometer's context propagation carries it: the
 * current observation (and with it the trace) and the MDC (here registered, as an application registers
 * {@code Slf4jThreadLocalAccessor}). Nothing of one caller's context stays on the invoking thread for the
 * next call. Spring Boot 3.5's module has no context-propagation on its test classpath and leaves this out.
 */
@BehaviourTest
class AsyncContextPropagationTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final String REQUEST = "request";

    @BeforeAll
    static void carryTheMdc() {
        ContextRegistry.getInstance().registerThreadLocalAccessor(new Slf4jThreadLocalAccessor(REQUEST));
    }

    @AfterAll
    static void stopCarryingTheMdc() {
        ContextRegistry.getInstance().removeThreadLocalAccessor(Slf4jThreadLocalAccessor.KEY);
    }

    private static ApplicationContextRunner application(RedisServer server) {
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + server.port())
                .withBean(ObservationRegistry.class, () -> observations)
                .withBean(Reports.class);
    }

    @Test
    void theMethodRunsOnTheStartersThreadWithItsCallersObservationAndMdc() {
        application(redis.server()).run(context -> {
            ObservationRegistry observations = context.getBean(ObservationRegistry.class);
            Observation caller = Observation.start("caller", observations);
            Seen seen;
            MDC.put(REQUEST, "r-1");
            try (Observation.Scope scope = caller.openScope()) {
                seen = context.getBean(Reports.class)
                        .write(observations)
                        .get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
            } finally {
                MDC.remove(REQUEST);
                caller.stop();
            }
            assertThat(seen.thread()).startsWith("distlock-invoke-");
            assertThat(seen.request()).isEqualTo("r-1");
            assertThat(seen.observation()).isSameAs(caller);
        });
    }

    @Test
    void nothingOfOneCallersContextStaysBehindForTheNextCall() {
        application(redis.server()).run(context -> {
            Reports reports = context.getBean(Reports.class);
            ObservationRegistry observations = context.getBean(ObservationRegistry.class);
            for (int call = 0; call < 5; call++) {
                MDC.put(REQUEST, "r-" + call);
                try {
                    assertThat(reports.write(observations)
                                    .get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS)
                                    .request())
                            .isEqualTo("r-" + call);
                } finally {
                    MDC.remove(REQUEST);
                }
                Seen bare = reports.write(observations).get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
                assertThat(bare.request())
                        .as("a caller without an MDC sees none")
                        .isNull();
                assertThat(bare.observation()).isNull();
            }
        });
    }

    /** What the locked method saw: its thread, the MDC's request, the current observation. */
    record Seen(String thread, String request, Observation observation) {}

    public static class Reports {
        @DistributedLock(key = "'report'")
        public CompletableFuture<Seen> write(ObservationRegistry observations) {
            return CompletableFuture.completedFuture(
                    new Seen(Thread.currentThread().getName(), MDC.get(REQUEST), observations.getCurrentObservation()));
        }
    }
}
