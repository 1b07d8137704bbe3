/**
 * Distributed locks on Redis for plain Java, with no Spring in the API.
 *
 * <p>{@link dev.distlock.core.LockClient} serves one Redis (standalone, Sentinel or Cluster);
 * {@link dev.distlock.core.RedLockClient} spans several independent masters. Both hand out
 * {@link dev.distlock.core.RedisLock} objects (reentrant, fair, the halves of a
 * {@link dev.distlock.core.RedisReadWriteLock}) and {@link dev.distlock.core.RedisMultiLock}s, with
 * fencing tokens, a lease watchdog and {@link dev.distlock.core.LockListener} events. Failures are
 * {@link dev.distlock.core.LockException}s: busy ({@link dev.distlock.core.LockAcquisitionException}),
 * Redis not answering ({@link dev.distlock.core.LockUnavailableException}), lease lost
 * ({@link dev.distlock.core.LockLeaseExpiredException}).
 *
 * <p>Parameters and results are non-null unless marked {@code @Nullable}; a null duration or label
 * then means the documented default.
 */
@NullMarked
package dev.distlock.core;

import org.jspecify.annotations.NullMarked;
