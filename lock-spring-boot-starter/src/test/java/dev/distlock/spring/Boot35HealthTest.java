package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.spring.actuate.DistributedLockBoot3HealthIndicator;
import dev.distlock.spring.actuate.DistributedLocksEndpoint;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockActuatorAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockBoot3HealthAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockLeaderAutoConfiguration;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthEndpointAutoConfiguration;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthComponent;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The health indicator on Spring Boot 3.5's health API (package org.springframework.boot.actuate.health,
 * gone in Boot 4), through Boot 3.5's own HealthEndpoint, on a real redis-server that the test pauses
 * (SIGSTOP) for DOWN. Boot 3.5 only: compiled and run in lock-boot35-tests, left out of the starter's
 * own (Boot 4) test run; Boot4HealthTest checks the same on Boot 4's health API.
 */
class Boot35HealthTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static ApplicationContextRunner runner(RedisServer server) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockLeaderAutoConfiguration.class,
                        DistributedLockActuatorAutoConfiguration.class,
                        DistributedLockBoot3HealthAutoConfiguration.class,
                        EndpointAutoConfiguration.class,
                        HealthContributorAutoConfiguration.class,
                        HealthEndpointAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + server.port(),
                        "spring.data.redis.timeout=1s",
                        "distlock.operation-timeout=1s",
                        "management.endpoint.health.show-details=always",
                        "management.endpoints.web.exposure.include=health,distributedlocks",
                        "distlock.leader.roles=boot35-health-" + server.port())
                .withBean(Jobs.class);
    }

    @Test
    void healthIndicatorComesWithActuatorAndBacksOffWhenSwitchedOffOrWithoutBoot3sHealthApi() {
        runner(redis.server())
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .hasSingleBean(DistributedLockBoot3HealthIndicator.class)
                        .hasBean("distributedLockHealthIndicator")
                        .hasSingleBean(DistributedLocksEndpoint.class));
        runner(redis.server())
                .withPropertyValues("management.health.distributedlock.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("distributedLockHealthIndicator"));
        runner(redis.server())
                .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("distributedLockHealthIndicator"));
    }

    @Test
    void healthEndpointShowsUpWithRecentLeaseLossesAndDownWhileRedisIsPaused() {
        RedisServer server = redis.startAnother();
        runner(server).run(context -> {
            HealthEndpoint endpoint = context.getBean(HealthEndpoint.class);
            try {
                context.getBean(Jobs.class).outliveLease(server);
            } catch (LockLeaseExpiredException expected) {
                // the caller's view; the health details are what this test is about
            }
            Health up = lockHealth(endpoint);
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsEntry("mode", "redis").containsKey("leaseLossWindow");
            await().atMost(Waits.GRANTED)
                    .until(() -> ((java.util.Map<?, ?>)
                                    lockHealth(endpoint).getDetails().get("leading"))
                            .containsKey("boot35-health-" + server.port()));
            assertThat((List<?>) up.getDetails().get("recentLeaseLosses"))
                    .singleElement()
                    .asString()
                    .contains("key=short-job");
            assertThat(endpoint.health().getStatus()).isEqualTo(Status.UP);

            server.pause();
            try {
                Health down = lockHealth(endpoint);
                assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                assertThat(down.getDetails()).containsKey("error").containsEntry("mode", "redis");
                assertThat(endpoint.health().getStatus())
                        .as("the application's overall health")
                        .isEqualTo(Status.DOWN);
            } finally {
                server.resume();
            }
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(20))
                    .until(() -> lockHealth(endpoint).getStatus().equals(Status.UP));
        });
    }

    @Test
    void inLocalModeTheHealthIsUpAndSaysSo() {
        LocalModeTest.runner()
                .withConfiguration(AutoConfigurations.of(DistributedLockBoot3HealthAutoConfiguration.class))
                .run(context -> {
                    HealthIndicator health = context.getBean("distributedLockHealthIndicator", HealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);
                    assertThat(health.health().getDetails()).containsEntry("mode", "local");
                });
    }

    private static Health lockHealth(HealthEndpoint endpoint) {
        HealthComponent component = endpoint.healthForPath("distributedLock");
        assertThat(component).as("distributedLock in /actuator/health").isInstanceOf(Health.class);
        return (Health) component;
    }

    public static class Jobs {
        /** Holds a 200 ms lease past its end (another client deletes nothing: the lease runs out). */
        // runs out while the method runs, never before it starts (see ActuatorEndpointTest.Jobs)
        @DistributedLock(key = "short-job", leaseTime = "1s")
        public void outliveLease(RedisServer server) {
            org.awaitility.Awaitility.await()
                    .atMost(dev.distlock.testsupport.Waits.GRANTED)
                    .until(() -> server.command("EXISTS", "lock:{short-job}").equals(":0"));
        }
    }
}
