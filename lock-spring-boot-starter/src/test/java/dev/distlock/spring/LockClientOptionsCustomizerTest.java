package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.LockClientOptionsCustomizer;
import dev.distlock.spring.local.LocalLocks;
import dev.distlock.testsupport.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.Order;

/** {@link LockClientOptionsCustomizer} beans adjust the lock client's options after the properties, in order. */
@Timeout(120)
class LockClientOptionsCustomizerTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        dev.distlock.spring.autoconfigure.DistributedLockLocalAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(), "distlock.key-prefix=from-properties:");
    }

    @Test
    void customizersRunAfterThePropertiesInTheirOrder() {
        runner().withBean("second", LockClientOptionsCustomizer.class, () -> new Second())
                .withBean("first", LockClientOptionsCustomizer.class, () -> new First())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    var options = context.getBean(LockClient.class).options();
                    assertThat(options.keyPrefix()).isEqualTo("second:");
                    assertThat(options.watchdogLease()).isEqualTo(Duration.ofSeconds(45));
                    // and the lock client uses them
                    var lock = context.getBean(LockClient.class).getLock("customized:1");
                    lock.lock();
                    try {
                        assertThat(redis.server().command("EXISTS", "second:{customized:1}"))
                                .isEqualTo(":1");
                    } finally {
                        lock.unlock();
                    }
                });
    }

    @Test
    void localModeAppliesThemToo() {
        runner().withPropertyValues("distlock.mode=local")
                .withBean(LockClientOptionsCustomizer.class, () -> builder -> builder.maxKeyLength(5))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LocalLocks locks = context.getBean(LocalLocks.class);
                    org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                                    locks.lock(dev.distlock.core.LockType.REENTRANT, false, "longer-than-five", "x"))
                            .isInstanceOf(IllegalArgumentException.class);
                });
    }

    @Test
    void aValueTheBuilderRefusesFailsStartupNamingTheCustomizer() {
        runner().withBean(
                        LockClientOptionsCustomizer.class,
                        () -> builder -> builder.watchdogLease(Duration.ofMillis(-1)))
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = AutoConfigurationTest.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("LockClientOptionsCustomizer");
                    assertThat(analysis.getAction()).contains("LockClientOptionsCustomizer bean");
                });
    }

    @Order(1)
    static class First implements LockClientOptionsCustomizer {
        @Override
        public void customize(dev.distlock.core.LockClientOptions.Builder builder) {
            builder.keyPrefix("first:").watchdogLease(Duration.ofSeconds(45));
        }
    }

    @Order(2)
    static class Second implements LockClientOptionsCustomizer {
        @Override
        public void customize(dev.distlock.core.LockClientOptions.Builder builder) {
            builder.keyPrefix("second:");
        }
    }
}
