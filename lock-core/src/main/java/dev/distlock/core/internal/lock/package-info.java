/**
 * The lock objects users hold: thread-bound locks and their handles, multi-locks, and the
 * {@link dev.distlock.core.internal.lock.LockPort} through which they reach an engine (Redis or
 * RedLock). Internal: not exported, not part of the API.
 */
@NullMarked
package dev.distlock.core.internal.lock;

import org.jspecify.annotations.NullMarked;
