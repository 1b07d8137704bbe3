package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockLeaderAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockMetricsAutoConfiguration;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The health indicator, built on Spring Boot 4's health API (module spring-boot-health). Boot 4 only:
 * lock-boot35-tests leaves this class out and runs Boot35HealthTest instead, the same checks on Boot
 * 3.5's health API.
 */
class Boot4HealthTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner redisRunner() {
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
    void healthIndicatorAndEndpointComeWithActuatorAndBackOffWhenSwitchedOff() {
        ApplicationContextRunner actuator = redisRunner()
                .withConfiguration(AutoConfigurations.of(
                        dev.distlock.spring.autoconfigure.DistributedLockActuatorAutoConfiguration.class))
                .withPropertyValues("management.endpoints.web.exposure.include=distributedlocks");
        actuator.run(context -> assertThat(context)
                .hasBean("distributedLockHealthIndicator")
                .hasSingleBean(dev.distlock.spring.actuate.DistributedLocksEndpoint.class)
                .doesNotHaveBean(dev.distlock.spring.actuate.ForceUnlockDistributedLocksEndpoint.class));
        actuator.withPropertyValues("management.health.distributedlock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("distributedLockHealthIndicator"));
        actuator.withClassLoader(new FilteredClassLoader(
                        org.springframework.boot.actuate.endpoint.annotation.Endpoint.class,
                        org.springframework.boot.health.contributor.HealthIndicator.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean("distributedLockHealthIndicator")
                        .doesNotHaveBean(dev.distlock.spring.actuate.DistributedLocksEndpoint.class));
    }

    @Test
    void inLocalModeTheHealthIsUpAndSaysSo() {
        LocalModeTest.runner().run(context -> {
            HealthIndicator health = context.getBean("distributedLockHealthIndicator", HealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            assertThat(health.health().getDetails()).containsEntry("mode", "local");
        });
    }

    @Test
    void theHealthDetailsListTheRolesThisInstanceLeads() {
        LocalModeTest.runner()
                .withConfiguration(AutoConfigurations.of(DistributedLockLeaderAutoConfiguration.class))
                .withPropertyValues("distlock.leader.roles=nightly-report")
                .run(context -> {
                    HealthIndicator health = context.getBean("distributedLockHealthIndicator", HealthIndicator.class);
                    await().atMost(Waits.GRANTED)
                            .until(
                                    () -> health.health().getDetails().get("leading"),
                                    leading -> ((java.util.Map<?, ?>) leading).containsKey("nightly-report"));
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                });
    }
}
