package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.actuate.RecentLeaseLosses;
import dev.distlock.spring.execution.LockSource;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Bad distlock.* values fail start-up naming the property and the fix, in Redis and local mode
 * alike, instead of switching locks off or reaching Redis first. No Redis answers here: every check
 * must fail before a connection is tried.
 */
class PropertyValidationAutoConfigurationTest {

    /** Every auto-configuration of the starter, as an application with a MeterRegistry gets them. */
    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS))
                .withConfiguration(AutoConfigurations.of(BootLine.starterAutoConfigurations()))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("spring.data.redis.port=" + dev.distlock.testsupport.Ports.closed());
    }

    private static FailureAnalysis failure(ApplicationContextRunner runner) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.run(context -> {
            assertThat(context).hasFailed();
            analysis[0] = AutoConfigurationTest.analyze(context.getStartupFailure());
        });
        return analysis[0];
    }

    @ParameterizedTest(name = "distlock.enabled=''{0}''")
    @ValueSource(strings = {"yes", "on", "1", "ture", ""})
    void enabledOtherThanTrueOrFalseFailsStartupInsteadOfSwitchingLocksOff(String value) {
        FailureAnalysis analysis = failure(runner().withPropertyValues("distlock.enabled=" + value));
        assertThat(analysis.getDescription())
                .startsWith("distlock.enabled is '" + value + "', which is neither true nor false")
                .contains("run unlocked");
        assertThat(analysis.getAction()).isEqualTo("Set distlock.enabled to true or false");
    }

    static Stream<Arguments> otherSwitches() {
        return Stream.of(
                Arguments.of("distlock.mode", "lcoal", "redis or local"),
                // Spring Boot would bind this one to LOCAL, while the conditions match neither mode
                Arguments.of("distlock.mode", "lo-cal", "redis or local"),
                Arguments.of("distlock.metrics.enabled", "yes", "true or false"),
                Arguments.of("distlock.actuator.force-unlock.enabled", "on", "true or false"));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("otherSwitches")
    void otherSwitchesMatchedByConditionsFailStartupOnAnUnknownValue(String property, String value, String values) {
        FailureAnalysis analysis = failure(runner().withPropertyValues(property + "=" + value));
        assertThat(analysis.getDescription()).startsWith(property + " is '" + value + "'");
        assertThat(analysis.getAction()).isEqualTo("Set " + property + " to " + values);
    }

    @Test
    void switchValuesAreKnownInAnyCaseAsTheConditionsCompareThem() {
        runner().withPropertyValues("distlock.enabled=TRUE", "distlock.mode=Local")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockSource.class));
        runner().withPropertyValues("distlock.enabled=False")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockSource.class));
    }

    static Stream<Arguments> badProperties() {
        return Stream.of(
                Arguments.of("distlock.key-prefix", new String[] {"distlock.key-prefix=app{x}:"}),
                Arguments.of("distlock.watchdog-lease", new String[] {"distlock.watchdog-lease=5ms"}),
                Arguments.of("distlock.fencing-counter-ttl", new String[] {"distlock.fencing-counter-ttl=10s"}),
                Arguments.of("distlock.max-key-length", new String[] {"distlock.max-key-length=0"}),
                Arguments.of("distlock.max-hold", new String[] {"distlock.max-hold=5ms"}),
                Arguments.of(
                        "distlock.long-hold-warning",
                        new String[] {"distlock.max-hold=1m", "distlock.long-hold-warning=1.5"}),
                Arguments.of("distlock.operation-timeout", new String[] {"distlock.operation-timeout=2h"}),
                Arguments.of("distlock.local-hand-offs", new String[] {"distlock.local-hand-offs=1001"}),
                Arguments.of("distlock.local-hand-off-window", new String[] {"distlock.local-hand-off-window=11s"}),
                Arguments.of("distlock.replica-acks", new String[] {"distlock.replica-acks=-1"}),
                Arguments.of(
                        "distlock.replica-ack-timeout",
                        new String[] {"distlock.replica-acks=1", "distlock.replica-ack-timeout=0ms"}),
                Arguments.of("distlock.wait-time", new String[] {"distlock.wait-time=-1s"}));
    }

    @ParameterizedTest(name = "{0} in {2} mode")
    @MethodSource("badPropertiesInEachMode")
    void badPropertyFailsStartupNamingItInEitherMode(String property, String[] values, String mode) {
        FailureAnalysis analysis =
                failure(runner().withPropertyValues("distlock.mode=" + mode).withPropertyValues(values));
        assertThat(analysis.getDescription()).startsWith("Invalid " + property + ": ");
        assertThat(analysis.getAction()).contains(property);
    }

    static Stream<Arguments> badPropertiesInEachMode() {
        return badProperties()
                .flatMap(a -> Stream.of("redis", "local").map(mode -> Arguments.of(a.get()[0], a.get()[1], mode)));
    }

    /** A duration is echoed as typed, never as Duration.toString() ("PT-1S"), in either mode. */
    @ParameterizedTest(name = "{0} in {1} mode")
    @CsvSource({
        "distlock.lease-time=-1s, redis, -1s, PT-1S",
        "distlock.lease-time=-1s, local, -1s, PT-1S",
        "distlock.wait-time=-1500ms, redis, -1500ms, PT-1.5S",
        "distlock.watchdog-lease=5ms, redis, 5ms, PT0.005S",
        "distlock.operation-timeout=2h, local, 2h, PT2H",
        "distlock.health.timeout=-1s, local, -1s, PT-1S",
        "distlock.health.lease-loss-window=-90s, local, -90s, PT-1M-30S"
    })
    void badDurationIsEchoedAsTyped(String property, String mode, String typed, String iso) {
        FailureAnalysis analysis =
                failure(runner().withPropertyValues("distlock.mode=" + mode).withPropertyValues(property));
        assertThat(analysis.getDescription())
                .startsWith("Invalid " + property.substring(0, property.indexOf('=')) + ": ")
                .contains(typed)
                .doesNotContain(iso);
    }

    @ParameterizedTest(name = "lease-loss-window={0}")
    @ValueSource(strings = {"0s", "-1m"})
    void leaseLossWindowThatWouldHideEveryLossFailsStartup(String value) {
        FailureAnalysis analysis = failure(
                runner().withPropertyValues("distlock.mode=local", "distlock.health.lease-loss-window=" + value));
        assertThat(analysis.getDescription()).startsWith("Invalid distlock.health.lease-loss-window: ");
        assertThat(analysis.getAction()).contains("positive duration");
    }

    /** Spring Boot binds an empty duration as no value, so the health check never sees a null window. */
    @Test
    void emptyLeaseLossWindowKeepsTheDefault() {
        runner().withPropertyValues("distlock.mode=local", "distlock.health.lease-loss-window=")
                .run(context -> assertThat(
                                context.getBean(RecentLeaseLosses.class).window())
                        .isEqualTo(Duration.ofMinutes(15)));
    }
}
