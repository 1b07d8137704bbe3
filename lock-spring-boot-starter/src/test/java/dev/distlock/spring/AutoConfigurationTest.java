package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockListener;
import dev.distlock.core.PubSubMode;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.aop.DistributedLockAdvisor;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.spring.metrics.MicrometerLockListener;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class AutoConfigurationTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockMetricsAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port());
    }

    @Test
    void buildsLockClientOnTheApplicationsRedisConnection() {
        runner().run(context -> {
            assertThat(context).hasSingleBean(LockClient.class).hasSingleBean(DistributedLockAdvisor.class);
            RedisLock lock = context.getBean(LockClient.class).getLock("autoconfig-" + System.nanoTime());
            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
            assertThat(redis.server().command("EXISTS", "lock:{" + lock.getKey() + "}"))
                    .isEqualTo(":1");
            lock.unlock();
        });
    }

    @Test
    void appliesKeyPrefixAndDatabaseFromProperties() {
        runner().withPropertyValues("distlock.key-prefix=app:locks:", "spring.data.redis.database=3")
                .run(context -> {
                    RedisLock lock = context.getBean(LockClient.class).getLock("prefixed");
                    lock.lock();
                    try {
                        assertThat(redis.server().command("EXISTS", "app:locks:{prefixed}"))
                                .isEqualTo(":0"); // database 0
                        RedisServer server = redis.server();
                        try (var client = io.lettuce.core.RedisClient.create(RedisURI.create(server.uri() + "/3"));
                                var connection = client.connect()) {
                            assertThat(connection.sync().exists("app:locks:{prefixed}"))
                                    .isEqualTo(1L);
                        }
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void propertyDefaultsMatchTheCoreDefaults() {
        var properties = new dev.distlock.spring.autoconfigure.DistributedLockProperties();
        assertThat(properties.getKeyPrefix()).isEqualTo(dev.distlock.core.LockClientOptions.DEFAULT_KEY_PREFIX);
        assertThat(properties.getWatchdogLease()).isEqualTo(dev.distlock.core.LockClientOptions.DEFAULT_WATCHDOG_LEASE);
        assertThat(properties.getFencingCounterTtl())
                .isEqualTo(dev.distlock.core.LockClientOptions.DEFAULT_FENCING_COUNTER_TTL);
        assertThat(properties.getLocalHandOffs())
                .isEqualTo(dev.distlock.core.LockClientOptions.DEFAULT_LOCAL_HAND_OFFS);
        assertThat(properties.getPubSub())
                .isEqualTo(dev.distlock.core.LockClientOptions.defaults().pubSub());
        assertThat(properties.getLocalHandOffWindow())
                .isEqualTo(dev.distlock.core.LockClientOptions.DEFAULT_LOCAL_HAND_OFF_WINDOW);
    }

    @Test
    void pubSubPropertyReachesTheClient() {
        runner().run(context ->
                assertThat(context.getBean(LockClient.class).options().pubSub()).isEqualTo(PubSubMode.AUTO));
        runner().withPropertyValues("distlock.pub-sub=plain")
                .run(context -> assertThat(
                                context.getBean(LockClient.class).options().pubSub())
                        .isEqualTo(PubSubMode.PLAIN));
        // Redis 7 serves sharded pub/sub off Cluster too: the client starts on it
        runner().withPropertyValues("distlock.pub-sub=SHARDED")
                .run(context -> assertThat(
                                context.getBean(LockClient.class).options().pubSub())
                        .isEqualTo(PubSubMode.SHARDED));
    }

    @Test
    void lockCohortingIsOnByDefaultAndTurnedOffByProperty() {
        runner().run(context -> assertThat(
                        context.getBean(LockClient.class).options().localHandOffs())
                .isEqualTo(64));
        runner().withPropertyValues("distlock.local-hand-offs=0", "distlock.local-hand-off-window=0ms")
                .run(context -> assertThat(
                                context.getBean(LockClient.class).options().localHandOffs())
                        .isZero());
    }

    @Test
    void usesTheApplicationsRedisPasswordAndReportsAWrongOne() {
        RedisServer secured = redis.startAnother("--requirepass", "s3cret");
        runner().withPropertyValues("spring.data.redis.port=" + secured.port(), "spring.data.redis.password=s3cret")
                .run(context -> {
                    RedisLock lock = context.getBean(LockClient.class).getLock("secured");
                    assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
                    lock.unlock();
                });
        runner().withPropertyValues("spring.data.redis.port=" + secured.port(), "spring.data.redis.password=wrong")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("could not connect to Redis")
                            .containsIgnoringCase("WRONGPASS");
                    assertThat(analysis.getAction()).contains("username/password");
                });
    }

    @Test
    void closesTheLockClientBeforeTheConnectionFactoryStops() {
        runner().run(context -> {
            var factory =
                    context.getBean(org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory.class);
            var lifecycle =
                    context.getBean("distributedLockClientLifecycle", org.springframework.context.SmartLifecycle.class);
            // Spring stops higher phases first: the lock client must close while its shared Lettuce client still runs.
            assertThat(lifecycle.getPhase()).isGreaterThan(factory.getPhase());
            RedisLock lock = context.getBean(LockClient.class).getLock("lifecycle");
            context.close();
            assertThat(lifecycle.isRunning()).isFalse();
            org.assertj.core.api.Assertions.assertThatThrownBy(lock::tryLock).isInstanceOf(RuntimeException.class);
        });
    }

    @Test
    void backsOffWhenDisabled() {
        runner().withPropertyValues("distlock.enabled=false")
                .run(context -> assertThat(context)
                        .doesNotHaveBean(LockClient.class)
                        .doesNotHaveBean(DistributedLockAdvisor.class));
    }

    @Test
    void backsOffForUserLockClient() {
        runner().withUserConfiguration(OwnClient.class).run(context -> {
            assertThat(context).hasSingleBean(LockClient.class);
            assertThat(context.getBean(LockClient.class).options().keyPrefix()).isEqualTo("own:");
        });
    }

    @Test
    void registersMetricsListenerWhenMeterRegistryExists() {
        runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasSingleBean(MicrometerLockListener.class);
            assertThat(context.getBean(LockClient.class).options().listeners())
                    .anySatisfy(l -> assertThat(l).isInstanceOf(MicrometerLockListener.class));
        });
    }

    @Test
    void noMetricsWithoutRegistryOrWithoutMicrometer() {
        runner().run(context -> assertThat(context)
                .doesNotHaveBean(MicrometerLockListener.class)
                .hasSingleBean(LockClient.class));
        runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("distlock.metrics.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(MicrometerLockListener.class));
        runner().withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .run(context -> assertThat(context)
                        .doesNotHaveBean(MicrometerLockListener.class)
                        .hasSingleBean(LockClient.class));
    }

    @Test
    void userListenersAreRegistered() {
        LockListener listener = new LockListener() {};
        runner().withBean(LockListener.class, () -> listener)
                .run(context -> assertThat(
                                context.getBean(LockClient.class).options().listeners())
                        .contains(listener));
    }

    @Test
    void unreachableRedisFailsStartupWithAdvice() {
        int closedPort = dev.distlock.testsupport.Ports.closed();
        runner().withPropertyValues("spring.data.redis.port=" + closedPort, "spring.data.redis.timeout=2s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("could not connect to Redis")
                            .contains("127.0.0.1:" + closedPort);
                    assertThat(analysis.getAction()).contains("spring.data.redis.host");
                });
    }

    @Test
    void invalidPropertiesFailStartupNamingTheProperty() {
        runner().withPropertyValues("distlock.key-prefix=bad{prefix").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analyze(context.getStartupFailure()).getDescription())
                    .contains("distlock.key-prefix")
                    .contains("'{'");
        });
        runner().withPropertyValues("distlock.wait-time=-1s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analyze(context.getStartupFailure()).getDescription()).contains("distlock.wait-time");
        });
        runner().withPropertyValues("distlock.watchdog-lease=5ms").run(context -> {
            assertThat(context).hasFailed();
            assertThat(analyze(context.getStartupFailure()).getDescription()).contains("distlock.watchdog-lease");
        });
    }

    @Test
    void failureAnalyzerIsRegisteredForSpringBoot() {
        assertThat(org.springframework.core.io.support.SpringFactoriesLoader.forDefaultResourceLocation()
                        .load(org.springframework.boot.diagnostics.FailureAnalyzer.class, (type, name, failure) -> {
                            // other analyzers need constructor arguments that Spring Boot supplies; only ours matters
                            // here
                        }))
                .anySatisfy(a -> assertThat(a.getClass().getName())
                        .isEqualTo("dev.distlock.spring.autoconfigure.DistributedLockFailureAnalyzer"));
    }

    static FailureAnalysis analyze(Throwable failure) {
        Throwable t = failure;
        while (t != null && !(t instanceof DistributedLockConfigurationException)) {
            t = t.getCause();
        }
        assertThat(t)
                .as("a DistributedLockConfigurationException in the cause chain of %s", failure)
                .isNotNull();
        FailureAnalysis analysis = new dev.distlock.spring.autoconfigure.TestFailureAnalyzerAccess().analyze(failure);
        assertThat(analysis).isNotNull();
        return analysis;
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {
        @Bean(destroyMethod = "close")
        LockClient ownLockClient() {
            return LockClient.create(
                    RedisURI.create(redis.server().uri()),
                    dev.distlock.core.LockClientOptions.builder()
                            .keyPrefix("own:")
                            .build());
        }
    }
}
