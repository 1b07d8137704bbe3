/**
 * Where {@link dev.distlock.spring.LockContext#fence()} keeps its fences: lock-core's {@code JdbcFence} on the
 * connection of the Spring transaction, and its {@code RedisFence} script on the application's Redis.
 * Internal to the starter.
 */
@NullMarked
package dev.distlock.spring.fence;

import org.jspecify.annotations.NullMarked;
