package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.AsyncContextPropagationTest.Reports;
import dev.distlock.spring.AsyncContextPropagationTest.Seen;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.micrometer.observation.ObservationRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.MDC;

/**
 * With {@code spring.threads.virtual.enabled=true}, a {@code @DistributedLock} method returning a
 * CompletionStage is invoked on a virtual thread of its own once its lock is held, still with its
 * caller's context; without it, on the starter's platform threads. Needs Java 21+: run by the
 * virtual-threads profile of the parent POM on the JDK that {@code DISTLOCK_JAVA21} names.
 */
class VirtualThreadStageInvokerTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @BeforeAll
    static void carryTheMdc() {
        AsyncContextPropagationTest.carryTheMdc();
    }

    @AfterAll
    static void stopCarryingTheMdc() {
        AsyncContextPropagationTest.stopCarryingTheMdc();
    }

    @Test
    void withVirtualThreadsEnabledTheMethodRunsOnAVirtualThreadWithItsCallersContext() {
        assertThat(Runtime.version().feature())
                .as("this test needs a Java 21+ JVM (see the parent POM's virtual-threads profile)")
                .isGreaterThanOrEqualTo(21);
        AsyncContextPropagationTest.application(redis.server())
                .withPropertyValues("spring.threads.virtual.enabled=true")
                .run(context -> {
                    Seen seen = call(context.getBean(Reports.class), context.getBean(ObservationRegistry.class));
                    assertThat(seen.virtual()).as("ran on a virtual thread").isTrue();
                    assertThat(seen.thread()).startsWith("distlock-invoke-");
                    assertThat(seen.request()).isEqualTo("r-virtual");
                });
    }

    @Test
    void withoutItTheMethodRunsOnThePlatformThreadsOfTheStarter() {
        AsyncContextPropagationTest.application(redis.server()).run(context -> {
            Seen seen = call(context.getBean(Reports.class), context.getBean(ObservationRegistry.class));
            assertThat(seen.virtual()).as("ran on a virtual thread").isFalse();
            assertThat(seen.thread()).startsWith("distlock-invoke-");
            assertThat(seen.request()).isEqualTo("r-virtual");
        });
    }

    private static Seen call(Reports reports, ObservationRegistry observations) throws Exception {
        MDC.put("request", "r-virtual");
        try {
            return reports.write(observations).get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
        } finally {
            MDC.remove("request");
        }
    }
}
