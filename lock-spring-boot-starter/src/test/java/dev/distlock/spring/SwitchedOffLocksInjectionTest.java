package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockDisabledAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockLocalAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockSwitchesAutoConfiguration;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * An application that injects LockTemplate starts with locks switched off (distlock.enabled=false) and in
 * local mode, and one log line says what the template does then. No Redis: any Redis call would fail.
 */
@ExtendWith(OutputCaptureExtension.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SwitchedOffLocksInjectionTest {

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockSwitchesAutoConfiguration.class,
                        DistributedLockLocalAutoConfiguration.class,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockDisabledAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + dev.distlock.testsupport.Ports.closed())
                .withBean(UsesTemplate.class);
    }

    @Test
    void disabledLocksKeepLockTemplateInjectableAndItRunsTheWorkUnlocked(CapturedOutput output) {
        runner().withPropertyValues("distlock.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockTemplate.class).doesNotHaveBean(LockClient.class);
            LockTemplate template = context.getBean(UsesTemplate.class).template;
            // Unlocked: a second caller on the same key runs while the first is still inside (try-once, no wait).
            Optional<String> inner = template.execute(
                    "order:1",
                    Duration.ZERO,
                    () -> CompletableFuture.supplyAsync(
                                    () -> template.tryExecute("order:1", Duration.ZERO, () -> "also ran"))
                            .join());
            assertThat(inner).contains("also ran");
            assertThat(output)
                    .containsOnlyOnce("distlock.enabled=false")
                    .contains("LockTemplate runs its work WITHOUT any lock")
                    .contains("creates no LockClient (it is the Redis client)");
        });
    }

    @Test
    void localModeKeepsLockTemplateInjectableAndSaysItLocksInThisJvm(CapturedOutput output) {
        runner().withPropertyValues("distlock.mode=local").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockTemplate.class).doesNotHaveBean(LockClient.class);
            LockTemplate template = context.getBean(UsesTemplate.class).template;
            Optional<String> inner = template.execute(
                    "order:1",
                    Duration.ZERO,
                    () -> CompletableFuture.supplyAsync(
                                    () -> template.tryExecute("order:1", Duration.ZERO, () -> "also ran"))
                            .join());
            assertThat(inner)
                    .as("locked in this JVM: a second caller is turned away")
                    .isEmpty();
            assertThat(output)
                    .containsOnlyOnce("distlock.mode=local")
                    .contains("@DistributedLock and LockTemplate lock within this JVM only")
                    .contains("creates no LockClient (it is the Redis client)");
        });
    }

    /** An application bean that injects the template by constructor, as the README recommends for self-calls. */
    static class UsesTemplate {
        final LockTemplate template;

        UsesTemplate(LockTemplate template) {
            this.template = template;
        }
    }
}
