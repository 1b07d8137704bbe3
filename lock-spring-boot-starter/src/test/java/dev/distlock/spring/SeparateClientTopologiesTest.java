package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.RedisClusterSetup;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisSentinelSetup;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.TestCertificates;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The locks' own Lettuce client beside a real JedisConnectionFactory (see NonLettuceConnectionFactoryTest),
 * on every topology it is built for from {@code spring.data.redis.*}: Sentinel (it follows a failover),
 * Cluster (names on every master), and TLS through an SSL bundle ({@code spring.data.redis.ssl.bundle}).
 * Each on real redis-server processes.
 */
@ExtendWith(OutputCaptureExtension.class)
@SlowTest
class SeparateClientTopologiesTest {

    private static final String SEPARATE = "distributed locks open their own Lettuce connection to ";

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static ApplicationContextRunner jedisApplication() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        SslAutoConfiguration.class, BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withUserConfiguration(RedisTopologiesTest.JobConfig.class)
                .withPropertyValues("spring.data.redis.client-type=jedis", "distlock.wait-time=1s");
    }

    @Test
    void sentinelSettingsReachTheMasterAndFollowAFailover(CapturedOutput output) {
        try (RedisSentinelSetup sentinel = RedisSentinelSetup.start()) {
            jedisApplication()
                    .withPropertyValues(
                            "spring.data.redis.sentinel.master=" + sentinel.masterName(),
                            "spring.data.redis.sentinel.nodes=" + sentinel.sentinelNodes(),
                            // Spring Boot takes only credentials and database from a url beside sentinel.*:
                            // nothing listens on its port, so connecting there would fail start-up
                            "spring.data.redis.url=redis://127.0.0.1:" + dev.distlock.testsupport.Ports.closed() + "/0",
                            "spring.data.redis.timeout=5s")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertJedis(context);
                        RedisTopologiesTest.Job job = context.getBean(RedisTopologiesTest.Job.class);
                        assertThat(job.run("before")).isTrue();
                        excludesAnotherInstance(
                                context, RedisURI.create(sentinel.master().uri()));

                        int oldMaster = sentinel.killMaster();
                        sentinel.awaitFailover(oldMaster, Duration.ofSeconds(30));

                        await().atMost(Duration.ofSeconds(30))
                                .pollInterval(Duration.ofMillis(200))
                                .ignoreExceptions()
                                .until(() -> job.run("after-" + UUID.randomUUID()));
                        excludesAnotherInstance(
                                context, RedisURI.create(sentinel.master().uri()));
                    });
            assertThat(output)
                    .containsOnlyOnce(SEPARATE)
                    .contains(SEPARATE + "sentinel master '" + sentinel.masterName() + "'");
        }
    }

    @Test
    void clusterSettingsLockNamesOnEveryMaster(CapturedOutput output) {
        try (RedisClusterSetup cluster = RedisClusterSetup.start()) {
            jedisApplication()
                    .withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.clusterNodes())
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertJedis(context);
                        RedisTopologiesTest.Job job = context.getBean(RedisTopologiesTest.Job.class);
                        LockClient client = context.getBean(LockClient.class);
                        Set<Integer> masters = new HashSet<>();
                        // random names until every master served one (a fixed count could miss one)
                        for (int i = 0; masters.size() < cluster.nodes().size(); i++) {
                            assertThat(i)
                                    .as("names drawn before every master was covered")
                                    .isLessThan(500);
                            String id = "order-" + UUID.randomUUID();
                            masters.add(cluster.nodeFor("lock:{job:" + id + "}").port());
                            assertThat(job.run(id)).isTrue();
                        }
                        RedisLock fair = client.getFairLock("fair-" + UUID.randomUUID());
                        assertThat(fair.tryLock(Duration.ofSeconds(2))).isTrue();
                        fair.unlock();
                        RedisLock multi = client.getMultiLock("a-" + UUID.randomUUID(), "b-" + UUID.randomUUID());
                        assertThat(multi.tryLock(Duration.ofSeconds(2))).isTrue();
                        multi.unlock();

                        RedisClusterClient other = RedisClusterClient.create(
                                cluster.uris().stream().map(RedisURI::create).toList());
                        try (LockClient otherInstance =
                                LockClient.create(other, dev.distlock.core.LockClientOptions.defaults())) {
                            excludes(context, otherInstance);
                        } finally {
                            ClientShutdown.shutdown(other);
                        }
                    });
            assertThat(output).containsOnlyOnce(SEPARATE).contains(SEPARATE + "cluster [");
        }
    }

    @Test
    void sslBundleAloneConnectsOverTls(CapturedOutput output) {
        SecureRedisTest.TlsServer tls = SecureRedisTest.TlsServer.start(redis);
        jedisApplication()
                .withPropertyValues(
                        tlsProperties(tls.tlsPort(), TestCertificates.shared().caCertificate()))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertJedis(context);
                    // the application's own Jedis connection uses the bundle too
                    context.getBean(StringRedisTemplate.class).opsForValue().set("jedis-over-tls", "yes");
                    assertThat(tls.server().command("GET", "jedis-over-tls")).contains("yes");

                    tls.assertLocksOnThisServer(context);
                    SecureRedisTest.exerciseEveryLockKind(context);
                    excludesAnotherInstance(
                            context, RedisURI.create(tls.server().uri()));
                });
        assertThat(output).containsOnlyOnce(SEPARATE).contains(SEPARATE + "127.0.0.1:" + tls.tlsPort());
    }

    @Test
    void sslBundleNotTrustingTheServerFailsStartupNamingTheCause() {
        SecureRedisTest.TlsServer tls = SecureRedisTest.TlsServer.start(redis);
        jedisApplication()
                .withPropertyValues(tlsProperties(tls.tlsPort(), TestCertificates.unknownCaCertificate()))
                .run(context -> {
                    assertThat(context).hasFailed();
                    Throwable failure = context.getStartupFailure();
                    assertThat(AutoConfigurationTest.analyze(failure).getDescription())
                            .contains("their own Lettuce connection to 127.0.0.1:" + tls.tlsPort())
                            .contains("unable to find valid certification path");
                });
    }

    private static void assertJedis(ApplicationContext context) {
        assertThat(context.getBean(RedisConnectionFactory.class)).isInstanceOf(JedisConnectionFactory.class);
    }

    /** Another instance on the same Redis (a plain LockClient at {@code uri}) and this application exclude each other. */
    private static void excludesAnotherInstance(ApplicationContext context, RedisURI uri) throws Exception {
        try (LockClient otherInstance = LockClient.create(uri)) {
            excludes(context, otherInstance);
        }
    }

    private static void excludes(ApplicationContext context, LockClient otherInstance) throws Exception {
        String id = "shared-" + UUID.randomUUID();
        RedisLock other = otherInstance.getLock("job:" + id);
        assertThat(other.tryLock(Waits.GRANTED)).isTrue();
        try {
            assertThatThrownBy(
                            () -> context.getBean(RedisTopologiesTest.Job.class).run(id))
                    .as("the application's lock while another instance holds it")
                    .isInstanceOf(LockAcquisitionException.class);
        } finally {
            other.unlock();
        }
        assertThat(context.getBean(RedisTopologiesTest.Job.class).run(id))
                .as("free again once the other instance released it")
                .isTrue();
    }

    /** Only the bundle: Spring Boot takes ssl.enabled as true when a bundle is named, and so must the locks. */
    private static String[] tlsProperties(int port, Path trustedCa) {
        return new String[] {
            "spring.data.redis.host=127.0.0.1",
            "spring.data.redis.port=" + port,
            "spring.data.redis.timeout=10s",
            "spring.data.redis.connect-timeout=10s",
            "spring.data.redis.ssl.bundle=redis-test",
            "spring.ssl.bundle.pem.redis-test.truststore.certificate=file:" + trustedCa
        };
    }
}
