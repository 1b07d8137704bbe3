package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.testsupport.Waits;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext;

/**
 * GET /actuator/distributedlocks/all on instance A lists the locks every instance holds, read from Redis:
 * here one held on instance B (a second application context on the same Redis), with B's instance record,
 * owner, fencing token and lease left.
 */
@SpringBootTest(
        classes = AllInstancesEndpointTest.App.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"management.endpoints.web.exposure.include=distributedlocks", "spring.application.name=instance-a"
        })
@DirtiesContext
class AllInstancesEndpointTest extends RunningApplication {

    @Autowired
    LockTemplate template;

    @Test
    void instanceAListsALockHeldOnInstanceBWithItsInstanceTokenAndLease() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong tokenOnB = new AtomicLong();
        try (ConfigurableApplicationContext instanceB = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .run(
                        // as arguments, not default properties: Redisson's starter (on the Boot 3.5 line's test class
                        // path) reads no default properties and would connect to localhost:6379
                        "--spring.data.redis.port=" + redis.port(), "--spring.application.name=instance-b")) {
            CompletableFuture<Void> heldOnB = CompletableFuture.runAsync(() -> instanceB
                    .getBean(LockTemplate.class)
                    .execute("invoice:77", Waits.GRANTED, () -> {
                        tokenOnB.set(LockContext.currentToken());
                        awaitLatch(release);
                    }));
            CompletableFuture<Void> heldOnA = CompletableFuture.runAsync(
                    () -> template.execute("invoice:78", Waits.GRANTED, () -> awaitLatch(release)));
            try {
                await().atMost(Waits.GRANTED)
                        .until(() -> get("/actuator/distributedlocks/all")
                                        .body()
                                        .contains("application=instance-b")
                                && get("/actuator/distributedlocks/all").body().contains("invoice:78"));
                String body = get("/actuator/distributedlocks/all").body();
                String onB = body.substring(body.indexOf("\"key\":\"invoice:77\""));
                onB = onB.substring(0, onB.indexOf("]}") + 2);
                assertThat(onB)
                        .contains("\"kind\":\"EXCLUSIVE\"")
                        .contains("application=instance-b, host=")
                        .contains("pid=" + ProcessHandle.current().pid()) // both contexts run in this JVM
                        .contains("\"thisInstance\":false")
                        .contains("\"fencingToken\":" + tokenOnB.get())
                        .contains("\"queuedWaiters\":0");
                assertThat(body).contains("\"leaseLeftMs\":").doesNotContain("\"leaseLeftMs\":null");
                String onA = body.substring(body.indexOf("\"key\":\"invoice:78\""));
                assertThat(onA.substring(0, onA.indexOf("]}") + 2))
                        .contains("application=instance-a")
                        .contains("\"thisInstance\":true");
                assertThat(body).contains("\"truncated\":false");
            } finally {
                release.countDown();
                heldOnB.get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
                heldOnA.get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
            }
            assertThat(get("/actuator/distributedlocks/all").body()).doesNotContain("invoice:77");
        }
    }

    @Test
    void anUnknownSelectorIsABadRequestThatSaysWhatToAskFor() throws Exception {
        var response = get("/actuator/distributedlocks/everything");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("/actuator/distributedlocks/all");
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            latch.await(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {}
}
