package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.distlock.core.LockUnavailableException;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisServer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A call during a Redis outage fails with LockUnavailableException whose cause chain ends in what went
 * wrong on the wire ("Connection refused" for a stopped redis-server), not only in Lettuce's log lines.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@BehaviourTest
class RedisOutageRootCauseTest {

    private RedisServer server;

    @BeforeEach
    void start() {
        server = RedisServer.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void aStoppedRedisLeavesConnectionRefusedInTheCauseChain() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + server.port(), "distlock.operation-timeout=2s")
                .withBean(Payments.class)
                .run(context -> {
                    Payments payments = context.getBean(Payments.class);
                    payments.pay(1); // connected
                    server.stop();

                    Throwable e = catchThrowable(() -> payments.pay(2));

                    assertThat(e).isInstanceOf(LockUnavailableException.class);
                    List<String> chain = chain(e);
                    assertThat(chain)
                            .as("the cause chain of %s", e)
                            .anySatisfy(link -> assertThat(link).containsIgnoringCase("Connection refused"));
                });
    }

    private static List<String> chain(Throwable e) {
        List<String> links = new ArrayList<>();
        for (Throwable t = e; t != null && links.size() < 20; t = t.getCause() == t ? null : t.getCause()) {
            links.add(t.toString());
        }
        return links;
    }

    static class Payments {
        @DistributedLock(key = "'order:' + #id")
        public void pay(long id) {}
    }
}
