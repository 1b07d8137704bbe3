package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.docs.ConfigurationReferenceTest;
import dev.distlock.spring.docs.PropertyRanges;
import dev.distlock.spring.docs.PropertyRanges.Range;
import dev.distlock.testsupport.RedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
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

/**
 * The ranges that docs/configuration.md states ({@link PropertyRanges}) are the ranges start-up keeps,
 * in Redis and local mode alike: a value just outside fails start-up with a report that names the
 * property and how to fix it, a value at either end starts. Every number and duration property has a
 * range or is declared free of one, so a new property cannot reach the reference without it.
 */
class PropertyRangesTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static ApplicationContextRunner application(String mode) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS))
                .withConfiguration(AutoConfigurations.of(BootLine.starterAutoConfigurations()))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("spring.data.redis.port=" + redis.server().port(), "distlock.mode=" + mode);
    }

    static Stream<Arguments> outside() {
        return values(Range::outside);
    }

    static Stream<Arguments> edges() {
        return values(Range::edges);
    }

    private static Stream<Arguments> values(java.util.function.Function<Range, List<String>> which) {
        return PropertyRanges.RANGES.stream()
                .flatMap(range -> which.apply(range).stream()
                        .flatMap(value -> modes(range).map(mode -> Arguments.of(range, value, mode))));
    }

    /** Both modes; RedLock nodes in Redis mode only (in local mode a redlock = true method is a local lock). */
    private static Stream<String> modes(Range range) {
        return range.property().startsWith("distlock.redlock.") ? Stream.of("redis") : Stream.of("redis", "local");
    }

    @ParameterizedTest(name = "{0}=''{1}'' in {2} mode")
    @MethodSource("outside")
    void aValueOutsideTheRangeFailsStartupNamingThePropertyAndTheFix(Range range, String value, String mode) {
        application(mode).withPropertyValues(range.settings(value)).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = AutoConfigurationTest.analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains(range.property());
            assertThat(analysis.getAction()).contains(range.property());
        });
    }

    @ParameterizedTest(name = "{0}=''{1}'' in {2} mode")
    @MethodSource("edges")
    void aValueAtEitherEndOfTheRangeStarts(Range range, String value, String mode) {
        application(mode)
                .withPropertyValues(range.settings(value))
                .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void everyNumberAndDurationPropertyHasARangeOrIsDeclaredFreeOfOne() throws IOException {
        List<String> numbersAndDurations = ConfigurationReferenceTest.properties().stream()
                .filter(p -> String.valueOf(p.get("name")).startsWith("distlock."))
                .filter(p -> List.of("java.lang.Integer", "java.lang.Long", "java.time.Duration")
                        .contains(String.valueOf(p.get("type"))))
                .map(p -> String.valueOf(p.get("name")))
                .toList();
        assertThat(numbersAndDurations)
                .isNotEmpty()
                .allSatisfy(property -> assertThat(PropertyRanges.of(property).isPresent()
                                || PropertyRanges.UNCONSTRAINED.contains(property))
                        .as("%s has a range in PropertyRanges (or is listed as UNCONSTRAINED)", property)
                        .isTrue());
        List<String> declared = ConfigurationReferenceTest.properties().stream()
                .map(p -> String.valueOf(p.get("name")))
                .toList();
        assertThat(PropertyRanges.RANGES)
                .extracting(Range::property)
                .as("ranges of properties that exist")
                .allSatisfy(property -> assertThat(declared).contains(property));
    }
}
