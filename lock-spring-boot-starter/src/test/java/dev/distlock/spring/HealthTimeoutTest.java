package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.testsupport.IntegrationTest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.annotation.DirtiesContext;

/**
 * /actuator/health answers DOWN within distlock.health.timeout while Redis does not answer (paused with
 * SIGSTOP), not after the lock client's operation timeout: here 30 s, so a check bounded by it could not
 * answer within the 15 s this test allows, while one bounded by the health timeout (1 s) answers far sooner.
 */
@SpringBootTest(
        classes = ActuatorEndpointTest.App.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=health",
            "management.endpoint.health.show-details=always",
            "distlock.operation-timeout=30s",
            "spring.data.redis.timeout=30s"
        })
@DirtiesContext
@Timeout(value = 180, unit = TimeUnit.SECONDS)
@IntegrationTest
class HealthTimeoutTest extends RunningApplication {

    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(30);

    @Test
    void healthAnswersDownWithinItsOwnTimeoutWhileRedisDoesNotAnswer() throws Exception {
        assertThat(get("/actuator/health/distributedLock").statusCode()).isEqualTo(200);

        redis.pause();
        try {
            // Twice: the second request finds the first check still waiting for Redis and waits on it, bounded alike.
            for (int request = 1; request <= 2; request++) {
                long started = System.nanoTime();
                HttpResponse<String> down = get("/actuator/health/distributedLock");
                Duration took = Duration.ofNanos(System.nanoTime() - started);

                assertThat(down.statusCode()).isEqualTo(503);
                assertThat(down.body()).contains("\"status\":\"DOWN\"").contains("distlock.health.timeout (1000 ms)");
                assertThat(took)
                        .as("request %d answered within half the operation timeout", request)
                        .isLessThan(OPERATION_TIMEOUT.dividedBy(2));
            }
        } finally {
            redis.resume();
        }
        await().atMost(Duration.ofSeconds(40))
                .until(() -> get("/actuator/health/distributedLock").statusCode() == 200);
    }
}
