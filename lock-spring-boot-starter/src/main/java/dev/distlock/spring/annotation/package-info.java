/**
 * The {@code @DistributedLock} annotation and its option types.
 */
@NullMarked
package dev.distlock.spring.annotation;

import org.jspecify.annotations.NullMarked;
