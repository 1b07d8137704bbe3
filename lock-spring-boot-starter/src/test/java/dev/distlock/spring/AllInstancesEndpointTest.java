package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * owner, fencing token, lease left, and the thread and held-for B published; and one held by a lock client
 * that publishes nothing, whose held-for is unknown.
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
    void instanceAListsALockHeldOnInstanceBWithItsInstanceTokenLeaseAndHeldFor() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong tokenOnB = new AtomicLong();
        AtomicReference<String> threadOnB = new AtomicReference<>();
        Instant beforeB = Instant.now();
        String idOfB;
        try (LockClient unpublished = LockClient.create(RedisURI.create(redis.uri()));
                ConfigurableApplicationContext instanceB = new SpringApplicationBuilder(App.class)
                        .web(WebApplicationType.NONE)
                        .run(
                                // as arguments, not default properties: Redisson's starter (on the Boot 3.5 line's test
                                // class
                                // path) reads no default properties and would connect to localhost:6379
                                "--spring.data.redis.port=" + redis.port(), "--spring.application.name=instance-b")) {
            CompletableFuture<Void> heldOnB = CompletableFuture.runAsync(() -> instanceB
                    .getBean(LockTemplate.class)
                    .execute("invoice:77", Waits.GRANTED, () -> {
                        tokenOnB.set(LockContext.currentToken());
                        threadOnB.set(Thread.currentThread().getName());
                        awaitLatch(release);
                    }));
            CompletableFuture<Void> heldOnA = CompletableFuture.runAsync(
                    () -> template.execute("invoice:78", Waits.GRANTED, () -> awaitLatch(release)));
            RedisLock withoutRecord = unpublished.getLock("invoice:79");
            assertThat(withoutRecord.tryLock(Waits.GRANTED)).isTrue();
            try {
                // B publishes its holds' grant times within a second of taking them
                await().atMost(Waits.GRANTED).until(() -> {
                    String listed = get("/actuator/distributedlocks/all").body();
                    return listed.contains("invoice:78")
                            && listed.contains("invoice:79")
                            && lockOf(listed, "invoice:77").contains("application=instance-b")
                            && !lockOf(listed, "invoice:77").contains("\"heldForMs\":null");
                });
                String body = get("/actuator/distributedlocks/all").body();
                Instant listed = Instant.now();
                String onB = lockOf(body, "invoice:77");
                assertThat(onB)
                        .contains("\"kind\":\"EXCLUSIVE\"")
                        .contains("application=instance-b, host=")
                        .contains("pid=" + ProcessHandle.current().pid()) // both contexts run in this JVM
                        .contains("\"thisInstance\":false")
                        .contains("\"fencingToken\":" + tokenOnB.get())
                        .contains("\"queuedWaiters\":0")
                        .contains("\"ownerThread\":\"" + threadOnB.get() + "\"")
                        .contains("\"heldSince\":\"");
                Matcher heldFor = Pattern.compile("\"heldForMs\":(\\d+)").matcher(onB);
                assertThat(heldFor.find()).isTrue();
                // held since B took it, after beforeB: no longer than that (+2 ms: times are rounded to milliseconds)
                assertThat(Long.parseLong(heldFor.group(1)))
                        .isLessThanOrEqualTo(Duration.between(beforeB, listed).toMillis() + 2);
                // a holder whose instance publishes no record of its holds: held-for unknown, the rest listed
                assertThat(lockOf(body, "invoice:79"))
                        .contains("\"fencingToken\":" + withoutRecord.currentFencingToken())
                        .contains("\"heldForMs\":null")
                        .contains("(unknown: no record under");
                assertThat(body).contains("\"leaseLeftMs\":").doesNotContain("\"leaseLeftMs\":null");
                assertThat(lockOf(body, "invoice:78"))
                        .contains("application=instance-a")
                        .contains("\"thisInstance\":true");
                assertThat(body).contains("\"truncated\":false");
            } finally {
                withoutRecord.unlock();
                release.countDown();
                heldOnB.get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
                heldOnA.get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
            }
            assertThat(get("/actuator/distributedlocks/all").body()).doesNotContain("invoice:77");
            idOfB = instanceB.getBean(LockClient.class).clientId();
        }
        // B, stopped, took its record and its published holds with it
        assertThat(redis.command("EXISTS", "lock:~instance:" + idOfB, "lock:~holds:" + idOfB))
                .isEqualTo(":0");
    }

    @Test
    void anUnknownSelectorIsABadRequestThatSaysWhatToAskFor() throws Exception {
        var response = get("/actuator/distributedlocks/everything");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.body()).contains("/actuator/distributedlocks/all");
    }

    /** The part of the listing {@code body} that describes the lock {@code key}. */
    private static String lockOf(String body, String key) {
        int at = body.indexOf("\"key\":\"" + key + "\"");
        if (at < 0) {
            return "";
        }
        int next = body.indexOf("{\"key\":\"", at); // the next lock's, or the end of the listing
        return body.substring(at, next < 0 ? body.length() : next);
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
