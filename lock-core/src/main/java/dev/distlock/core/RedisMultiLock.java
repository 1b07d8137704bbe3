package dev.distlock.core;

import dev.distlock.core.internal.lock.MultiLock;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Several locks taken as one, all or nothing. Names are locked in sorted order, so two callers
 * locking {@code {a, b}} and {@code {b, a}} can never deadlock; when one lock cannot be had within
 * the wait time, the ones already taken are released and the attempt fails.
 *
 * <pre>{@code
 * RedisMultiLock transfer = client.getMultiLock("account:" + from, "account:" + to);
 * if (transfer.tryLock(Duration.ofSeconds(2))) {
 *     try { ... } finally { transfer.unlock(); }
 * }
 * }</pre>
 */
public interface RedisMultiLock extends RedisLock {

    /**
     * Several locks of any source (this library's, or another implementation of {@link RedisLock})
     * taken as one, all or nothing, in sorted key order as {@link LockClient#getMultiLock} does; its
     * handles ({@link #tryLockAsync}) keep every key's fencing token ({@link LockHandle#fencingTokens()}).
     *
     * @throws IllegalArgumentException when {@code locks} is empty or two locks have the same key
     */
    static RedisMultiLock of(Collection<? extends RedisLock> locks) {
        if (locks == null || locks.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock");
        }
        locks.forEach(lock -> java.util.Objects.requireNonNull(lock, "locks must not contain null"));
        List<RedisLock> sorted = locks.stream()
                .<RedisLock>map(lock -> lock)
                .sorted(java.util.Comparator.comparing(RedisLock::getKey))
                .toList();
        List<String> keys = sorted.stream().map(RedisLock::getKey).toList();
        if (keys.stream().distinct().count() != keys.size()) {
            throw new IllegalArgumentException(
                    "a multi-lock takes each key once, got " + keys + ": pass each lock once");
        }
        return new MultiLock(keys, sorted);
    }

    /** The distinct lock keys, in the order they are locked. */
    List<String> keys();

    /**
     * Each name's fencing token for the current thread's hold, in locking order.
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the locks
     */
    Map<String, Long> fencingTokens();

    /**
     * The largest of the held locks' tokens. Each protected resource should check the token of its
     * own name ({@link #fencingTokens()}); this is for a resource that all the names guard together.
     */
    @Override
    long currentFencingToken();
}
