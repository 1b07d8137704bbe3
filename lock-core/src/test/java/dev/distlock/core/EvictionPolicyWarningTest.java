package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.core.internal.redis.EvictionPolicyCheck;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/**
 * The client warns when Redis's {@code maxmemory-policy} can evict lock keys (issue 48, item 3): at
 * start-up and after a reconnect, once, naming the policy and the fix; never under
 * {@code noeviction}; a user not allowed {@code CONFIG} skips the check with a DEBUG line.
 */
@Timeout(60)
@BehaviourTest
class EvictionPolicyWarningTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger(EvictionPolicyCheck.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private Level level;
    private RedisServer server;

    @BeforeEach
    void capture() {
        level = logger.getLevel();
        logger.setLevel(Level.DEBUG);
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void release() {
        logger.detachAppender(appender);
        logger.setLevel(level);
        if (server != null) {
            server.close();
        }
    }

    @Test
    void warnsOnceUnderVolatileLruNamingThePolicyAndTheFix() throws Exception {
        server = RedisServer.start("--maxmemory-policy", "volatile-lru");

        try (LockClient client = LockClient.create(RedisURI.create(server.uri()))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> !warnings().isEmpty());
            RedisLock lock = client.getLock(Names.fresh("evict"));
            lock.lock();
            lock.unlock();

            assertThat(warnings())
                    .singleElement()
                    .satisfies(line -> assertThat(line)
                            .contains("maxmemory-policy is volatile-lru")
                            .contains("volatile-* policies evict locks")
                            .contains("Set maxmemory-policy to noeviction"));
        }
    }

    @Test
    void staysQuietUnderNoeviction() {
        server = RedisServer.start("--maxmemory-policy", "noeviction");

        try (LockClient client = LockClient.create(RedisURI.create(server.uri()))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> configGetsServed() >= 1);
            await().during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> warnings().isEmpty());
        }
    }

    @Test
    void warnsAfterAReconnectFindsAnEvictingPolicy() {
        server = RedisServer.start("--maxmemory-policy", "noeviction");

        try (LockClient client = LockClient.create(RedisURI.create(server.uri()))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> configGetsServed() >= 1);
            server.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
            assertThat(warnings()).isEmpty();

            server.command("CLIENT", "KILL", "TYPE", "normal");

            await().atMost(Duration.ofSeconds(20)).until(() -> !warnings().isEmpty());
            assertThat(warnings()).singleElement().asString().contains("maxmemory-policy is allkeys-lru");
        }
    }

    @Test
    void aUserWithoutConfigRightsSkipsTheCheckWithADebugLine() throws Exception {
        server = RedisServer.start("--maxmemory-policy", "volatile-lru");
        server.command("ACL", "SETUSER", "locker", "on", ">secret", "~*", "&*", "+@all", "-config");
        RedisURI uri = RedisURI.builder()
                .withHost(server.host())
                .withPort(server.port())
                .withAuthentication("locker", "secret".toCharArray())
                .build();

        try (LockClient client = LockClient.create(uri)) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> lines(Level.DEBUG).stream().anyMatch(l -> l.contains("may not run CONFIG GET")));
            RedisLock lock = client.getLock(Names.fresh("evict"));
            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
            lock.unlock();
        }
        assertThat(warnings()).isEmpty();
    }

    private List<String> warnings() {
        return lines(Level.WARN);
    }

    private List<String> lines(Level at) {
        synchronized (appender) {
            return appender.list.stream()
                    .filter(e -> e.getLevel() == at)
                    .map(ILoggingEvent::getFormattedMessage)
                    .toList();
        }
    }

    private long configGetsServed() {
        String stats = server.query("INFO", "commandstats");
        return stats.lines()
                .filter(l -> l.startsWith("cmdstat_config|get:calls="))
                .mapToLong(l -> Long.parseLong(l.substring("cmdstat_config|get:calls=".length(), l.indexOf(','))))
                .sum();
    }
}
