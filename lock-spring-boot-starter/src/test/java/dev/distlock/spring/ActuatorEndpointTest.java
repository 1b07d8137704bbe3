package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.testsupport.IntegrationTest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The read-only endpoint over HTTP in a running application on a real redis-server (the health
 * indicator, on both Boot lines, is in {@link ActuatorHealthTest}).
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
class ActuatorEndpointTest extends RunningApplication {

    @Autowired
    Jobs jobs;

    @Autowired
    LockTemplate template;

    @Autowired
    LockClient client;

    @Test
    void listsTheHoldsOfThisInstanceWithKindOwnerTokenAndLease() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        // threads of their own: both hold at once, which the common pool need not allow (on Java 25 with two
        // cores its one worker runs the second only after the first)
        ExecutorService holders = Executors.newFixedThreadPool(2);
        CompletableFuture<Void> annotated = CompletableFuture.runAsync(() -> jobs.hold("order:42", release), holders);
        CompletableFuture<Void> programmatic = CompletableFuture.runAsync(
                () -> template.withName("exports")
                        .withLeaseTime(Duration.ofMinutes(5))
                        .execute("export:7", Duration.ofSeconds(5), () -> awaitRelease(release)),
                holders);
        try {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> get("/actuator/distributedlocks").body().contains("export:7")
                            && get("/actuator/distributedlocks").body().contains("order:42"));
            String body = get("/actuator/distributedlocks").body();
            assertThat(body)
                    .contains("\"mode\":\"redis\"")
                    .contains("'otherHolds' directly through the LockClient")
                    .contains("\"name\":\"jobs\"")
                    .contains("\"key\":\"order:42\"")
                    .contains("\"type\":\"REENTRANT\"")
                    .contains("\"lease\":\"watchdog\"")
                    .contains("\"name\":\"exports\"")
                    .contains("\"lease\":\"fixed\"")
                    .contains("\"fixedLeaseMs\":300000")
                    .contains("\"fencingTokens\":{\"order:42\":")
                    .contains("\"ownerThread\":")
                    .contains("\"leaseLeftMs\":");
            assertThat(body).doesNotContain("\"leaseLeftMs\":null");
            assertThat(body).as("the starter's own holds are not listed twice").contains("\"otherHolds\":[]");
        } finally {
            release.countDown();
            annotated.get(20, TimeUnit.SECONDS);
            programmatic.get(20, TimeUnit.SECONDS);
            holders.shutdown();
        }
        assertThat(get("/actuator/distributedlocks").body()).contains("\"holds\":[]");
    }

    @Test
    void listsHoldsTakenDirectlyThroughTheLockClientApart() throws Exception {
        RedisLock direct = client.getLock("invoice:9", "invoices");
        direct.lock();
        LockHandle handle =
                client.getFairLock("queue:3").lockAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            String body = get("/actuator/distributedlocks").body();
            assertThat(body).contains("\"holds\":[]");
            String others = body.substring(body.indexOf("\"otherHolds\""));
            assertThat(others)
                    .contains("\"name\":\"invoices\"")
                    .contains("\"key\":\"invoice:9\"")
                    .contains("\"ownerThread\":\"" + Thread.currentThread().getName() + "\"")
                    .contains("\"fencingToken\":" + direct.currentFencingToken())
                    .contains("\"key\":\"queue:3\"")
                    .contains("\"type\":\"FAIR\"")
                    .contains("owned by no thread")
                    .contains("\"fencingToken\":" + handle.fencingToken())
                    .contains("\"lease\":\"watchdog\"");
        } finally {
            direct.unlock();
            handle.unlock();
        }
        assertThat(get("/actuator/distributedlocks").body()).contains("\"otherHolds\":[]");
    }

    @Test
    void forceUnlockIsNotOfferedUnlessSwitchedOn() throws Exception {
        HttpResponse<String> response =
                post("/actuator/distributedlocks", "{\"key\":\"order:1\",\"type\":\"REENTRANT\"}");
        assertThat(response.statusCode()).isIn(400, 404, 405);
        assertThat(response.body()).doesNotContain("deleted");
    }

    private static Object awaitRelease(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return null;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    public static class Jobs {
        @DistributedLock(key = "#key", name = "jobs")
        public void hold(String key, CountDownLatch release) {
            awaitRelease(release);
        }

        @DistributedLock(key = "short-job", leaseTime = "200ms")
        public void outliveLease() {
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> redis.command("EXISTS", "lock:{short-job}").equals(":0"));
        }
    }
}
