package dev.distlock.core.internal.lock;

import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.core.internal.support.Durations;
import dev.distlock.core.internal.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/** All-or-nothing lock over several thread-bound locks, taken in sorted name order. */
public final class MultiLock implements RedisMultiLock {

    private final String name;
    private final List<String> names;
    private final List<RedisLock> locks;

    /**
     * The locks on {@code keys} (each checked by {@code requireName}, duplicates counted once), made by
     * {@code lockOf} and taken in sorted key order.
     */
    public static MultiLock of(
            @Nullable Collection<String> keys, UnaryOperator<String> requireName, Function<String, RedisLock> lockOf) {
        if (keys == null || keys.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock key");
        }
        List<String> sorted = keys.stream().map(requireName).distinct().sorted().toList();
        return new MultiLock(sorted, sorted.stream().map(lockOf).toList());
    }

    public MultiLock(List<String> sortedNames, List<RedisLock> locks) {
        this.names = List.copyOf(sortedNames);
        this.locks = List.copyOf(locks);
        this.name = String.join("+", sortedNames);
    }

    @Override
    public String getKey() {
        return name;
    }

    @Override
    public List<String> keys() {
        return names;
    }

    /** Sorted order: waiting for ever cannot deadlock with another multi-lock. */
    @Override
    public void lock() {
        lockAll(null);
    }

    @Override
    public void lock(Duration lease) {
        lockAll(Durations.requireFixedLease(lease, name));
    }

    private void lockAll(@Nullable Duration lease) {
        List<RedisLock> taken = new ArrayList<>();
        try {
            for (RedisLock lock : locks) {
                if (lease == null) {
                    lock.lock();
                } else {
                    lock.lock(lease);
                }
                taken.add(lock);
            }
        } catch (RuntimeException e) {
            releaseAll(taken, e);
            throw e;
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        List<RedisLock> taken = new ArrayList<>();
        try {
            for (RedisLock lock : locks) {
                lock.lockInterruptibly();
                taken.add(lock);
            }
        } catch (InterruptedException | RuntimeException e) {
            releaseAll(taken, e);
            throw e;
        }
    }

    @Override
    public boolean tryLock() {
        List<RedisLock> taken = new ArrayList<>();
        try {
            for (RedisLock lock : locks) {
                if (!lock.tryLock()) {
                    releaseAll(taken, null);
                    return false;
                }
                taken.add(lock);
            }
            return true;
        } catch (RuntimeException e) {
            releaseAll(taken, e);
            throw e;
        }
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return tryLock(waitTime, null);
    }

    @Override
    public boolean tryLock(Duration waitTime, @Nullable Duration lease) throws InterruptedException {
        Duration wait = Durations.waitOrForever(waitTime, "waitTime of multi-lock '" + name + "'");
        // For ever, each lock is given what is left of a deadline far beyond the limit, so it waits for ever too.
        long deadline = Durations.deadline(System.nanoTime(), wait);
        List<RedisLock> taken = new ArrayList<>();
        try {
            for (RedisLock lock : locks) {
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                if (!lock.tryLock(left, lease)) {
                    releaseAll(taken, null); // all or nothing
                    return false;
                }
                taken.add(lock);
            }
            return true;
        } catch (InterruptedException | RuntimeException e) {
            releaseAll(taken, e);
            throw e;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Duration wait = Durations.waitOrForever(time, unit);
        return tryLock(wait == null ? Durations.MAX_WAIT.plusDays(1) : wait, null); // over the limit: for ever
    }

    @Override
    public CompletionStage<LockHandle> lockAsync() {
        return Futures.derive(
                MultiAcquisition.start(name, locks, null, null),
                Optional::orElseThrow,
                handle -> handle.ifPresent(LockHandle::unlockAsync));
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime) {
        return tryLockAsync(waitTime, null);
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime, @Nullable Duration lease) {
        Duration wait = Durations.waitOrForever(waitTime, "waitTime of multi-lock '" + name + "'");
        Durations.requireLease(lease, name);
        return MultiAcquisition.start(name, locks, wait, lease);
    }

    /** Releases every lock, in reverse order; the first failure is thrown after all were tried. */
    @Override
    public void unlock() {
        unlock(Duration.ZERO);
    }

    /** As {@link #unlock()}, each name kept taken until {@code holdAtLeast} after its grant. */
    @Override
    public void unlock(Duration holdAtLeast) {
        HoldAtLeast.require(holdAtLeast, getKey());
        checkHoldAtLeast(holdAtLeast);
        RuntimeException first = null;
        for (int i = locks.size() - 1; i >= 0; i--) {
            try {
                locks.get(i).unlock(holdAtLeast);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /**
     * Refuses a positive {@code holdAtLeast} that one of the locks cannot keep before any is released, so
     * that the caller can still release them all with {@link #unlock()}.
     */
    private void checkHoldAtLeast(Duration holdAtLeast) {
        for (RedisLock lock : locks) {
            if (lock instanceof ThreadBoundLock<?> bound) {
                bound.checkHoldAtLeast(holdAtLeast);
            } else if (lock instanceof MultiLock multi) {
                multi.checkHoldAtLeast(holdAtLeast);
            }
        }
    }

    private static void releaseAll(List<RedisLock> taken, @Nullable Throwable cause) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).unlock();
            } catch (RuntimeException e) {
                if (cause != null) {
                    cause.addSuppressed(e);
                }
                // otherwise the partial hold expires with its lease; the caller learns nothing it can act on
            }
        }
    }

    @Override
    public boolean isHeldByCurrentThread() {
        return locks.stream().allMatch(RedisLock::isHeldByCurrentThread);
    }

    @Override
    public int getHoldCount() {
        return isHeldByCurrentThread()
                ? locks.stream().mapToInt(RedisLock::getHoldCount).min().orElse(0)
                : 0;
    }

    /** Whether any of the names is held by anyone. */
    @Override
    public boolean isLocked() {
        return locks.stream().anyMatch(RedisLock::isLocked);
    }

    /** The shortest lease left among the names. */
    @Override
    public Duration remainingLease() {
        return locks.stream()
                .map(RedisLock::remainingLease)
                .min(Duration::compareTo)
                .orElse(Duration.ZERO);
    }

    @Override
    public Map<String, Long> fencingTokens() {
        Map<String, Long> tokens = new LinkedHashMap<>();
        for (int i = 0; i < locks.size(); i++) {
            tokens.put(names.get(i), locks.get(i).currentFencingToken());
        }
        return tokens;
    }

    @Override
    public long currentFencingToken() {
        return fencingTokens().values().stream()
                .mapToLong(Long::longValue)
                .max()
                .orElseThrow();
    }

    /** Deletes every one of the locks, whoever holds them; true when any was deleted. */
    @Override
    public boolean forceUnlock() {
        boolean any = false;
        for (RedisLock lock : locks) {
            any |= lock.forceUnlock();
        }
        return any;
    }

    @Override
    public String toString() {
        return "RedisMultiLock" + names;
    }
}
