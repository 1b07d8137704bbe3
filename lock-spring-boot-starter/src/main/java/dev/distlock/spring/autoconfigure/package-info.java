/**
 * Auto-configuration and the {@code distributed-lock.*} properties.
 */
@NullMarked
package dev.distlock.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
