/**
 * Spring Boot integration of distlock: {@link dev.distlock.spring.LockContext} gives code running
 * under {@code @DistributedLock} its fencing token.
 */
@NullMarked
package dev.distlock.spring;

import org.jspecify.annotations.NullMarked;
