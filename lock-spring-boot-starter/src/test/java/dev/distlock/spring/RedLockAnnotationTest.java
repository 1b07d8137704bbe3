package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockType;
import dev.distlock.core.RedLockClient;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code @DistributedLock(redlock = true)}, or {@code type = REDLOCK}, over distlock.redlock.nodes. */
@BehaviourTest
class RedLockAnnotationTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.server().port());
    }

    @Test
    void redlockMethodsHoldTheLockOnAMajorityOfTheNodes() {
        holdsOnAMajority(Payouts.class, 7);
    }

    @Test
    void typeRedlockIsTheSameAsRedlockTrue() {
        holdsOnAMajority(TypedPayouts.class, 8);
    }

    private void holdsOnAMajority(Class<? extends Payouts> bean, int n) {
        List<RedisServer> nodes = List.of(redis.startAnother(), redis.startAnother(), redis.startAnother());
        runner().withPropertyValues("distlock.redlock.nodes="
                        + String.join(",", nodes.stream().map(RedisServer::uri).toList()))
                .withBean(bean)
                .run(context -> {
                    assertThat(context).hasSingleBean(RedLockClient.class);
                    Payouts payouts = context.getBean(bean);
                    long holding = payouts.pay(n, nodes);
                    assertThat(holding)
                            .as("nodes holding the key during the method")
                            .isGreaterThanOrEqualTo(2);
                    // released on every node: unlock returns once a majority released, the others just after
                    await().atMost(Duration.ofSeconds(5))
                            .untilAsserted(() -> assertThat(nodes)
                                    .allSatisfy(node -> assertThat(node.command("EXISTS", "lock:{payout:" + n + "}"))
                                            .isEqualTo(":0")));
                    assertThat(redis.server().command("EXISTS", "lock:{payout:" + n + "}"))
                            .as("not on the application's Redis")
                            .isEqualTo(":0");
                });
    }

    static Stream<Arguments> badRedlockSetups() {
        return Stream.of(
                Arguments.of(List.of(), Payouts.class, "distlock.redlock.nodes is not set", "at least 3 independent"),
                Arguments.of(List.of(), TypedPayouts.class, "(type = REDLOCK) on", "distlock.redlock.nodes"),
                Arguments.of(
                        List.of("redis://127.0.0.1:1", "redis://127.0.0.1:2"),
                        Payouts.class,
                        "lists 2 node(s)",
                        "3 or more"),
                Arguments.of(
                        List.of("redis://a:1", "not a uri", "redis://b:1"),
                        Payouts.class,
                        "not a Redis URI",
                        "redis://"),
                Arguments.of(
                        List.of("redis://127.0.0.1:1", "redis://127.0.0.1:2", "redis://127.0.0.1:3"),
                        RedlockWithKeys.class,
                        "combines RedLock with keys",
                        "single key"));
    }

    @ParameterizedTest(name = "{2}")
    @MethodSource("badRedlockSetups")
    void badRedlockSetupFailsStartup(List<String> nodes, Class<?> bean, String problem, String advice) {
        ApplicationContextRunner runner = runner().withBean(bean);
        if (!nodes.isEmpty()) {
            runner = runner.withPropertyValues("distlock.redlock.nodes=" + String.join(",", nodes));
        }
        runner.run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = AutoConfigurationTest.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains(problem);
            assertThat(analysis.getAction()).contains(advice);
        });
    }

    public static class Payouts {
        @DistributedLock(key = "'payout:' + #n", redlock = true)
        public long pay(int n, List<RedisServer> nodes) {
            return nodes.stream()
                    .filter(node ->
                            node.command("EXISTS", "lock:{payout:" + n + "}").equals(":1"))
                    .count();
        }
    }

    public static class TypedPayouts extends Payouts {
        @Override
        @DistributedLock(key = "'payout:' + #n", type = LockType.REDLOCK)
        public long pay(int n, List<RedisServer> nodes) {
            return super.pay(n, nodes);
        }
    }

    public static class RedlockWithKeys {
        @DistributedLock(
                keys = {"a", "b"},
                redlock = true)
        public void run() {}
    }
}
