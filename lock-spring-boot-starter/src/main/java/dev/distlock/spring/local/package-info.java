/**
 * Locks for {@code distlock.mode=local}: lock-core's own locks on an in-process store that runs the
 * same scripts as Redis, so the API, metrics and errors are those of Redis mode; not distributed.
 */
@NullMarked
package dev.distlock.spring.local;

import org.jspecify.annotations.NullMarked;
