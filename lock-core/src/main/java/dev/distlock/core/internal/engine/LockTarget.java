package dev.distlock.core.internal.engine;

import dev.distlock.core.LockInfo;
import dev.distlock.core.internal.redis.LockKeys;

/**
 * One lock as an engine acquires it: its kind, how events name it, and its keys in Redis.
 *
 * @param kind the kind of lock
 * @param info the lock's key, name and type, for events and messages
 * @param keys its keys in Redis
 */
record LockTarget(LockKind kind, LockInfo info, LockKeys keys) {}
