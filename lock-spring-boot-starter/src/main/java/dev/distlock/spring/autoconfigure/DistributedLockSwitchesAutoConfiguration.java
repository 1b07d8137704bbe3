package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.DistributedLockConfigurationException;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertyResolver;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Fails start-up, before any bean is made, when a {@code distlock.*} switch that the
 * auto-configurations' conditions read has a value they do not know ({@code enabled=yes}, {@code on},
 * {@code 1}, a typo such as {@code ture}). Those conditions compare the text with {@code true}/{@code false}
 * (or {@code redis}/{@code local}), case aside, so such a value matches none of them: every lock
 * auto-configuration would back off, with no advisor, no coverage check and no warning, and each
 * {@code @DistributedLock} method would run unlocked.
 */
@AutoConfiguration
@Conditional(DistributedLockSwitchesAutoConfiguration.UnknownSwitchValue.class)
public class DistributedLockSwitchesAutoConfiguration {

    /** A property that conditions match as text, the values they match, and what any other value would do. */
    private record Switch(String property, List<String> values, String otherwise) {}

    private static final List<Switch> SWITCHES = List.of(
            new Switch(
                    "distlock.enabled",
                    List.of("true", "false"),
                    "no lock auto-configuration would match it, and every @DistributedLock method would run unlocked"
                            + " without a warning"),
            new Switch(
                    "distlock.mode",
                    List.of("redis", "local"),
                    "neither the Redis locks nor the local locks would be configured"),
            new Switch(
                    "distlock.metrics.enabled",
                    List.of("true", "false"),
                    "the lock metrics would be off without a warning"),
            new Switch(
                    DistributedLockActuatorAutoConfiguration.FORCE_UNLOCK,
                    List.of("true", "false"),
                    "the distributedlocks endpoint would not be registered at all"));

    @Bean
    static BeanFactoryPostProcessor distributedLockUnknownSwitchValue(Environment environment) {
        return beanFactory -> {
            DistributedLockConfigurationException problem = problem(environment);
            if (problem != null) {
                throw problem;
            }
        };
    }

    /** The first switch set to a value its conditions do not know, as the start-up failure; {@code null} if none. */
    static @Nullable DistributedLockConfigurationException problem(PropertyResolver properties) {
        for (Switch s : SWITCHES) {
            String value = properties.getProperty(s.property());
            if (value != null && s.values().stream().noneMatch(value::equalsIgnoreCase)) {
                return new DistributedLockConfigurationException(
                        s.property() + " is '" + value + "', which is neither " + String.join(" nor ", s.values())
                                + ": " + s.otherwise(),
                        "Set " + s.property() + " to " + String.join(" or ", s.values()));
            }
        }
        return null;
    }

    /** Whether a switch has a value that no condition matches. */
    static class UnknownSwitchValue extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            DistributedLockConfigurationException problem = problem(context.getEnvironment());
            return problem != null
                    ? ConditionOutcome.match(problem.getDescription())
                    : ConditionOutcome.noMatch("every distlock.* switch is unset or has a known value");
        }
    }
}
