package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisURI;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * Beside a Jedis factory, the locks' own Lettuce client connects where Spring Boot's Redis connection
 * details say, as Boot's own clients do: a connection-details bean (what Testcontainers'
 * {@code @ServiceConnection} and Docker Compose support register) wins over {@code spring.data.redis.*},
 * whose host and port here lead nowhere. Each Boot line names the details type differently, so each
 * line's test supplies its own bean: Boot4ConnectionDetailsTest and (in lock-boot35-tests)
 * Boot35ConnectionDetailsTest.
 */
@ExtendWith(OutputCaptureExtension.class)
abstract class ConnectionDetailsChecks {

    static final String PASSWORD = "details-secret";

    /** A connection-details bean of this Boot line for a standalone Redis on {@code port}, with a password. */
    abstract Class<?> detailsType();

    abstract Supplier<?> details(int port, String password);

    @Test
    void theSeparateClientConnectsWhereTheConnectionDetailsBeanSaysNotToTheProperties(CapturedOutput output)
            throws Exception {
        int nowhere = dev.distlock.testsupport.Ports.closed();
        try (RedisServer secured = RedisServer.start("--requirepass", PASSWORD)) {
            jedisApplication(nowhere, secured).run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(org.springframework.data.redis.connection.RedisConnectionFactory.class))
                        .isInstanceOf(JedisConnectionFactory.class);
                NonLettuceConnectionFactoryTest.excludesAnotherInstance(
                        context,
                        RedisURI.builder(RedisURI.create(secured.uri()))
                                .withPassword(PASSWORD.toCharArray())
                                .build());
            });
            assertThat(output)
                    .contains("their own Lettuce connection to localhost:" + secured.port())
                    .contains("ConnectionDetails")
                    .doesNotContain(":" + nowhere + " ");
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private ApplicationContextRunner jedisApplication(int nowhere, RedisServer secured) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.client-type=jedis",
                        "spring.data.redis.host=localhost",
                        "spring.data.redis.port=" + nowhere,
                        "spring.data.redis.timeout=5s",
                        "distlock.wait-time=0")
                .withBean((Class) detailsType(), (Supplier) details(secured.port(), PASSWORD))
                .withBean(NonLettuceConnectionFactoryTest.Orders.class);
    }
}
