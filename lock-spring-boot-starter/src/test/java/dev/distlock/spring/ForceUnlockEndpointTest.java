package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.testsupport.IntegrationTest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.test.annotation.DirtiesContext;

/** With distlock.actuator.force-unlock.enabled=true the endpoint deletes a held lock, and its holder learns it lost it. */
@SpringBootTest(
        classes = ActuatorEndpointTest.App.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {
            "management.endpoints.web.exposure.include=distributedlocks",
            "distlock.actuator.force-unlock.enabled=true"
        })
@DirtiesContext
@IntegrationTest
class ForceUnlockEndpointTest extends RunningApplication {

    @Autowired
    ActuatorEndpointTest.Jobs jobs;

    @Test
    void deletesAHeldLockAndItsHolderGetsLockLeaseExpiredException() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> jobs.hold("order:9", release));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> redis.command("EXISTS", "lock:{order:9}").equals(":1"));

        HttpResponse<String> response =
                post("/actuator/distributedlocks", "{\"key\":\"order:9\",\"type\":\"REENTRANT\"}");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"deleted\":true");
        assertThat(redis.command("EXISTS", "lock:{order:9}")).isEqualTo(":0");

        release.countDown();
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> holder.get(20, TimeUnit.SECONDS)))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(LockLeaseExpiredException.class);

        assertThat(post("/actuator/distributedlocks", "{\"key\":\"order:9\",\"type\":\"REENTRANT\"}")
                        .body())
                .contains("\"deleted\":false")
                .contains("not held");
        assertThat(post("/actuator/distributedlocks", "{\"key\":\"order:9\",\"type\":\"SHARED\"}")
                        .body())
                .contains("\"deleted\":false")
                .contains("one of");
    }

    @Test
    void aRequestWithoutTheTypeGets400NamingTheMissingField() throws Exception {
        HttpResponse<String> noType = post("/actuator/distributedlocks", "{\"key\":\"order:10\"}");
        assertThat(noType.statusCode()).isEqualTo(400);
        assertThat(noType.body())
                .contains("Missing 'type'")
                .contains("REENTRANT")
                .contains("\"deleted\":false");

        HttpResponse<String> empty = post("/actuator/distributedlocks", "{}");
        assertThat(empty.statusCode()).isEqualTo(400);
        assertThat(empty.body()).contains("Missing 'key' and 'type'");

        HttpResponse<String> unknown = post("/actuator/distributedlocks", "{\"key\":\"order:10\",\"type\":\"SHARED\"}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("Unknown 'type' SHARED");
    }
}
