package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.IntegrationTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Applications whose RedisConnectionFactory is not Lettuce: Jedis, or Redisson's starter (which
 * replaces the factory, so its users can move to these locks one lock at a time). The locks open
 * their own Lettuce connection from the same spring.data.redis.* settings and say so once.
 */
@ExtendWith(OutputCaptureExtension.class)
@IntegrationTest
class NonLettuceConnectionFactoryTest {

    private static final String SEPARATE = "distributed locks open their own Lettuce connection";

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner(Class<?>... clientAutoConfiguration) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(clientAutoConfiguration))
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.server().port(), "distlock.wait-time=0")
                .withBean(Orders.class);
    }

    @Test
    void besideAJedisFactoryLocksWorkOnTheSameRedisOverTheirOwnConnection(CapturedOutput output) {
        runner().withPropertyValues("spring.data.redis.client-type=jedis").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
            excludesAnotherInstanceOnTheSameRedis(context);
            // the application's own Redis access still goes through Jedis
            context.getBean(StringRedisTemplate.class).opsForValue().set("jedis-still-works", "yes");
            assertThat(context.getBean(StringRedisTemplate.class).opsForValue().get("jedis-still-works"))
                    .isEqualTo("yes");
        });
        assertThat(output)
                .containsOnlyOnce(SEPARATE)
                .contains(JedisConnectionFactory.class.getName())
                .contains("localhost:" + redis.server().port());
    }

    @Test
    void besideRedissonsStarterLocksWorkOnTheSameRedisOverTheirOwnConnection(CapturedOutput output) {
        runner(BootLine.redisson()).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(RedisConnectionFactory.class).getClass().getName())
                    .startsWith("org.redisson.");
            excludesAnotherInstanceOnTheSameRedis(context);
        });
        assertThat(output).containsOnlyOnce(SEPARATE).contains("org.redisson.");
    }

    @Test
    void aSeparateConnectionThatCannotConnectFailsStartupNamingWhatToCheck() {
        int port = dev.distlock.testsupport.Ports.closed();
        // Jedis connects lazily, so only the locks' own connection notices at start-up.
        runner().withPropertyValues(
                        "spring.data.redis.client-type=jedis",
                        "spring.data.redis.port=" + port,
                        "spring.data.redis.timeout=2s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    DistributedLockConfigurationException failure =
                            findConfigurationFailure(context.getStartupFailure());
                    assertThat(failure.getDescription())
                            .contains("their own Lettuce connection to localhost:" + port)
                            .contains("JedisConnectionFactory");
                    assertThat(failure.getAction())
                            .contains("spring.data.redis.*")
                            .as("switching locks off is no fix for a connection error")
                            .doesNotContain("distlock.enabled");
                });
    }

    @Test
    void theSeparateClientIsShutDownWithTheContext() {
        RedisServer own = RedisServer.start();
        try {
            runner().withPropertyValues(
                            "spring.data.redis.client-type=jedis",
                            "spring.data.redis.port=" + own.port(),
                            "spring.data.redis.client-name=distlock-separate")
                    .run(context -> {
                        assertThat(clientNames(own)).contains("distlock-separate");
                    });
            // closed with the context: Redis no longer lists the named connection
            await().atMost(Duration.ofSeconds(10)).until(() -> !clientNames(own).contains("distlock-separate"));
        } finally {
            own.close();
        }
    }

    private static String clientNames(RedisServer server) {
        return server.query("CLIENT", "LIST");
    }

    private static void excludesAnotherInstanceOnTheSameRedis(AssertableApplicationContext context) throws Exception {
        excludesAnotherInstance(context, RedisURI.create(redis.server().uri()));
    }

    /** While this application holds order:1, another instance (a plain LockClient on {@code redis}) cannot take it. */
    static void excludesAnotherInstance(AssertableApplicationContext context, RedisURI redis) throws Exception {
        Orders orders = context.getBean(Orders.class);
        try (LockClient otherInstance = LockClient.create(redis)) {
            RedisLock other = otherInstance.getLock("order:1");
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread holder = new Thread(() -> orders.ship(1, inside, release));
            holder.start();
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(other.tryLock(Waits.RUNS_OUT))
                    .as("held by the application through the separate connection")
                    .isFalse();
            release.countDown();
            holder.join(10_000);
            assertThat(other.tryLock(Duration.ofSeconds(5)))
                    .as("released by the application")
                    .isTrue();
            other.unlock();
        }
        // and the other way round: the application's lock is busy while the other instance holds it
        try (LockClient otherInstance = LockClient.create(redis)) {
            RedisLock other = otherInstance.getLock("order:2");
            other.lock();
            try {
                assertThatThrownBy(() -> orders.ship(2, new CountDownLatch(1), new CountDownLatch(0)))
                        .isInstanceOf(LockAcquisitionException.class);
            } finally {
                other.unlock();
            }
        }
    }

    private static DistributedLockConfigurationException findConfigurationFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof DistributedLockConfigurationException found) {
                return found;
            }
        }
        throw new AssertionError("no DistributedLockConfigurationException in " + failure, failure);
    }

    public static class Orders {
        @DistributedLock(key = "'order:' + #id")
        public void ship(int id, CountDownLatch inside, CountDownLatch release) {
            inside.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
