/**
 * Everything that talks to Redis: the port the engine reaches a Redis through
 * ({@link dev.distlock.core.internal.redis.RedisPort}) and its Lettuce connections, the calls that run the scripts with bounded waits
 * and safe re-sends ({@link dev.distlock.core.internal.redis.RedisCalls}), the key layout of a lock
 * ({@link dev.distlock.core.internal.redis.LockKeys}) and the pub/sub wake-ups of waiters. It knows
 * nothing of holds or kinds. Internal: not exported, not part of the API.
 */
@NullMarked
package dev.distlock.core.internal.redis;

import org.jspecify.annotations.NullMarked;
