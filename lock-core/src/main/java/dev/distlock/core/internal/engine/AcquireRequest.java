package dev.distlock.core.internal.engine;

import dev.distlock.core.LockInfo;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.redis.LockKeys;
import org.jspecify.annotations.Nullable;

/**
 * One call to acquire a lock, as a value.
 *
 * @param kind the kind of lock
 * @param info the lock's name and label, for events and messages
 * @param keys its keys in Redis
 * @param owner the owner id (client id plus thread id for thread-bound locks)
 * @param lease the lease the grant gets
 * @param thread the thread that will own the hold, {@code null} for a handle
 * @param interruptible whether an interrupt ends the wait ({@code lockInterruptibly}, {@code tryLock})
 * @param startNanos when the call started (System.nanoTime)
 */
record AcquireRequest(
        LockKind kind,
        LockInfo info,
        LockKeys keys,
        String owner,
        @Nullable Thread thread,
        Lease lease,
        boolean interruptible,
        long startNanos) {}
