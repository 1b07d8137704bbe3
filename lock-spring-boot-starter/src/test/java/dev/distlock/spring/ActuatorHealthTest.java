package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.testsupport.IntegrationTest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The health indicator over HTTP in a running application on a real redis-server that the test pauses
 * (SIGSTOP) to make it unreachable. Runs on both Boot lines: on 4.x the indicator is built on Boot 4's
 * health API, in lock-boot35-tests on Boot 3.5's, and both must answer the same.
 */
@SpringBootTest(
        classes = ActuatorEndpointTest.App.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=health,distributedlocks",
                    "management.endpoint.health.show-details=always",
            "distlock.operation-timeout=1s", "spring.data.redis.timeout=1s"
        })
@DirtiesContext
@IntegrationTest
class ActuatorHealthTest extends RunningApplication {

    @Autowired
    ActuatorEndpointTest.Jobs jobs;

    @Test
    void healthIsUpWithRecentLeaseLossesAndDownWhileRedisDoesNotAnswer() throws Exception {
        try {
            jobs.outliveLease(); // a 200 ms lease held past its end: reported lost
        } catch (dev.distlock.core.LockLeaseExpiredException expected) {
            // the caller's view; the health details are what this test is about
        }
        HttpResponse<String> up = get("/actuator/health/distributedLock");
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(up.body())
                .contains("\"status\":\"UP\"")
                .contains("\"recentLeaseLosses\":[{")
                .contains("\"key\":\"short-job\"");

        redis.pause();
        try {
            HttpResponse<String> down = get("/actuator/health/distributedLock");
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(down.body()).contains("\"status\":\"DOWN\"").contains("error");
        } finally {
            redis.resume();
        }
        await().atMost(Duration.ofSeconds(20))
                .until(() -> get("/actuator/health/distributedLock").statusCode() == 200);
    }
}
