/**
 * In-JVM locks for {@code distlock.mode=local}: the same API, metrics and errors, no Redis;
 * not distributed.
 */
@NullMarked
package dev.distlock.spring.local;

import org.jspecify.annotations.NullMarked;
