package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisReadWriteLock;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.IntegrationTest;
import dev.distlock.testsupport.RedisBinary;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.TestCertificates;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Locks work over the application's own secured Redis connection, configured only with the normal
 * {@code spring.data.redis.*} and {@code spring.ssl.bundle.*} settings: an ACL user confined to the
 * lock prefix, and TLS with a PEM bundle. Wrong settings fail start-up with the starter's message.
 */
@IntegrationTest
class SecureRedisTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SslAutoConfiguration.class, BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.timeout=10s",
                        "spring.data.redis.connect-timeout=10s");
    }

    /** A server whose default user is off; "locker" may touch only lock:* keys and channels, "admin" is for the test's checks. */
    private static RedisServer aclServer() {
        RedisServer server = redis.startAnother();
        assertThat(server.command("ACL", "SETUSER", "admin", "on", ">adminpw", "~*", "&*", "+@all"))
                .isEqualTo("+OK");
        assertThat(server.command(
                        "ACL",
                        "SETUSER",
                        "locker",
                        "on",
                        ">pw",
                        "resetkeys",
                        "~lock:*",
                        "resetchannels",
                        "&lock:*",
                        "+@all"))
                .isEqualTo("+OK");
        assertThat(server.command("ACL", "SETUSER", "default", "off")).isEqualTo("+OK");
        return server;
    }

    private static RedisClient admin(RedisServer server) {
        return RedisClient.create(RedisURI.builder()
                .withHost(server.host())
                .withPort(server.port())
                .withAuthentication("admin", "adminpw".toCharArray())
                .build());
    }

    @Test
    void aclUserConfinedToTheLockPrefixCanUseEveryLockKind() {
        RedisServer server = aclServer();
        runner().withPropertyValues(
                        "spring.data.redis.port=" + server.port(),
                        "spring.data.redis.username=locker",
                        "spring.data.redis.password=pw")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    exerciseEveryLockKind(context);
                });
        RedisClient admin = admin(server);
        try (var connection = admin.connect()) {
            assertThat(connection.sync().aclLog())
                    .as("commands or keys the ACL denied")
                    .isEmpty();
            assertThat(connection.sync().keys("*"))
                    .allSatisfy(k -> assertThat(k).startsWith("lock:"));
        } finally {
            ClientShutdown.shutdown(admin); // bounded, unlike RedisClient.close()
        }
    }

    @Test
    void disabledDefaultUserOrWrongCredentialsFailStartup() {
        RedisServer server = aclServer();
        for (List<String> credentials : List.of(
                List.<String>of(),
                List.of("spring.data.redis.password=pw"),
                List.of("spring.data.redis.username=locker", "spring.data.redis.password=wrong"))) {
            runner().withPropertyValues("spring.data.redis.port=" + server.port())
                    .withPropertyValues(credentials.toArray(String[]::new))
                    .run(context -> {
                        assertThat(context).as("credentials %s", credentials).hasFailed();
                        FailureAnalysis analysis = AutoConfigurationTest.analyze(context.getStartupFailure());
                        assertThat(analysis.getDescription())
                                .contains("could not connect to Redis")
                                .containsPattern("NOAUTH|WRONGPASS");
                        assertThat(analysis.getAction()).contains("username/password");
                    });
        }
    }

    @Test
    void tlsWithAPemBundleTrustingTheServersCa() {
        TlsServer tls = tlsServer();
        runner().withPropertyValues(
                        tlsProperties(tls.tlsPort(), TestCertificates.shared().caCertificate()))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    exerciseEveryLockKind(context);
                    tls.assertLocksOnThisServer(context);
                });
    }

    @Test
    void sslAgainstAPlainPortFailsStartup() {
        TlsServer tls = tlsServer();
        runner().withPropertyValues(tlsProperties(
                        tls.server().port(), TestCertificates.shared().caCertificate()))
                .run(context -> assertCouldNotConnect(context.getStartupFailure(), context));
    }

    @Test
    void plainAgainstTheTlsPortFailsStartup() {
        TlsServer tls = tlsServer();
        runner().withPropertyValues("spring.data.redis.port=" + tls.tlsPort())
                .run(context -> assertCouldNotConnect(context.getStartupFailure(), context));
    }

    @Test
    void untrustedServerCertificateFailsStartup() {
        TlsServer tls = tlsServer();
        runner().withPropertyValues(tlsProperties(tls.tlsPort(), TestCertificates.unknownCaCertificate()))
                .run(context -> {
                    FailureAnalysis analysis = assertCouldNotConnect(context.getStartupFailure(), context);
                    assertThat(analysis.getDescription()).contains("unable to find valid certification path");
                });
    }

    private static FailureAnalysis assertCouldNotConnect(Throwable failure, ApplicationContext context) {
        assertThat(failure).as("start-up failure").isNotNull();
        FailureAnalysis analysis = AutoConfigurationTest.analyze(failure);
        assertThat(analysis.getDescription()).contains("could not connect to Redis");
        assertThat(analysis.getAction()).contains("and ssl");
        return analysis;
    }

    /**
     * A server with a TLS listener. Its plain port stays open on loopback only for the test's own
     * checks (RedisServer waits for it); the application under test is pointed at the TLS port.
     */
    record TlsServer(RedisServer server, int tlsPort) {

        /** Starts one more server of {@code redis} with a TLS port; skips the test where redis-server has no TLS. */
        static TlsServer start(RedisExtension redis) {
            assumeThat(RedisBinary.isBundled()).as(RedisBinary.NO_TLS).isFalse();
            RedisServer.WithSecondPort started =
                    redis.startAnotherWithSecondPort(TestCertificates.shared()::redisTlsArgs);
            return new TlsServer(started.server(), started.port());
        }

        /** The application's lock client writes its keys to this server (seen from the plain port). */
        void assertLocksOnThisServer(ApplicationContext context) throws InterruptedException {
            RedisLock lock = context.getBean(LockClient.class).getLock("over-tls");
            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
            try {
                assertThat(server.command("EXISTS", "lock:{over-tls}")).isEqualTo(":1");
            } finally {
                lock.unlock();
            }
        }
    }

    private static TlsServer tlsServer() {
        return TlsServer.start(redis);
    }

    private static String[] tlsProperties(int port, Path trustedCa) {
        return new String[] {
            "spring.data.redis.port=" + port,
            "spring.data.redis.ssl.enabled=true",
            "spring.data.redis.ssl.bundle=redis-test",
            "spring.ssl.bundle.pem.redis-test.truststore.certificate=file:" + trustedCa
        };
    }

    /** Reentrant, fair (with a waiter woken over pub/sub), read/write and multi-locks over the configured connection. */
    static void exerciseEveryLockKind(ApplicationContext context) throws Exception {
        LockClient client = context.getBean(LockClient.class);
        RedisLock fair = client.getFairLock("secure-fair");
        fair.lock();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            RedisLock same = client.getFairLock("secure-fair");
            try {
                boolean got = same.tryLock(Duration.ofSeconds(5));
                if (got) {
                    same.unlock();
                }
                return got;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        // the waiter queued behind the holder in Redis (read over the application's own connection), so that
        // the release below grants it the lock rather than leaving it free for the waiter's first attempt
        StringRedisTemplate redisOfTheApplication = context.getBean(StringRedisTemplate.class);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> redisOfTheApplication.opsForList().size("lock:{secure-fair}:queue") == 1);
        fair.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).as("fair waiter woken").isTrue();

        RedisLock plain = client.getLock("secure-plain");
        assertThat(plain.tryLock(Waits.GRANTED)).isTrue();
        plain.unlock();
        RedisReadWriteLock rw = client.getReadWriteLock("secure-rw");
        assertThat(rw.readLock().tryLock(Waits.GRANTED)).isTrue();
        rw.readLock().unlock();
        assertThat(rw.writeLock().tryLock(Waits.GRANTED)).isTrue();
        rw.writeLock().unlock();
        RedisLock multi = client.getMultiLock("secure-a", "secure-b");
        assertThat(multi.tryLock(Waits.GRANTED)).isTrue();
        multi.unlock();
    }
}
