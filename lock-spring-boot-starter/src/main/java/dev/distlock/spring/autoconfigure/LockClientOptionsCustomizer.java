package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClientOptions;

/**
 * Adjusts the options of the lock clients the starter builds (the {@code LockClient}, the
 * {@code RedLockClient} and local mode's locks), after the {@code distlock.*} properties and the
 * {@code LockListener} beans were applied: for what has no property, or is computed. Beans of this type
 * are applied in their {@code @Order}.
 *
 * <pre>{@code
 * @Bean
 * LockClientOptionsCustomizer lockOptions(MyAuditListener audit) {
 *     return builder -> builder.listener(audit).keyPrefix("billing:lock:");
 * }
 * }</pre>
 *
 * <p>A value the builder refuses fails start-up as a bad property does.
 */
@FunctionalInterface
public interface LockClientOptionsCustomizer {

    /** Changes {@code builder}, which holds the options from the properties. */
    void customize(LockClientOptions.Builder builder);
}
