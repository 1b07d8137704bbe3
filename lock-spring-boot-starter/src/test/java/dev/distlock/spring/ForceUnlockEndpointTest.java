package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.testsupport.RedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
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
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** With distributed-lock.actuator.force-unlock.enabled=true the endpoint deletes a held lock, and its holder learns it lost it. */
@SpringBootTest(classes = ActuatorEndpointTest.App.class, webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "management.endpoints.web.exposure.include=distributedlocks", "distributed-lock.actuator.force-unlock.enabled=true" })
@DirtiesContext
class ForceUnlockEndpointTest {

    static final RedisServer redis = RedisServer.start();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.port", redis::port);
    }

    @LocalServerPort
    int port;

    @Autowired
    ActuatorEndpointTest.Jobs jobs;

    private HttpResponse<String> post(String json) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/actuator/distributedlocks"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).timeout(Duration.ofSeconds(30))
                .build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void deletesAHeldLockAndItsHolderGetsLockLeaseExpiredException() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> jobs.hold("order:9", release));
        await().atMost(Duration.ofSeconds(20)).until(() -> redis.command("EXISTS", "lock:{order:9}").equals(":1"));

        HttpResponse<String> response = post("{\"key\":\"order:9\",\"type\":\"REENTRANT\"}");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"deleted\":true");
        assertThat(redis.command("EXISTS", "lock:{order:9}")).isEqualTo(":0");

        release.countDown();
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> holder.get(20, TimeUnit.SECONDS)))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(LockLeaseExpiredException.class);

        assertThat(post("{\"key\":\"order:9\",\"type\":\"REENTRANT\"}").body()).contains("\"deleted\":false").contains("not held");
        assertThat(post("{\"key\":\"order:9\",\"type\":\"SHARED\"}").body()).contains("\"deleted\":false").contains("one of");
    }
}
