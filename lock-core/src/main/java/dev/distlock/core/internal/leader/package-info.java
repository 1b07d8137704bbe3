/**
 * Leader election on the lock API: a candidate per role holds the role's lock on the watchdog lease, its
 * fencing token the term, and steps down by its local lease clock before the lock can expire in Redis.
 * Reaches an engine through {@link dev.distlock.core.internal.lock.LockPort}, so Redis, RedLock and local
 * mode serve it alike. Internal: not exported, not part of the API.
 */
@NullMarked
package dev.distlock.core.internal.leader;

import org.jspecify.annotations.NullMarked;
