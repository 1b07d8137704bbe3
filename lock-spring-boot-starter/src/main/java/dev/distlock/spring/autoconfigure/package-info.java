/**
 * Auto-configuration and the {@code distlock.*} properties.
 */
@NullMarked
package dev.distlock.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
