package dev.distlock.spring.local;

import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.spring.execution.MultiKeyHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** Local locks taken as one, all or nothing, in sorted name order (no deadlock between callers naming them in other orders). */
final class LocalMultiLock implements RedisMultiLock {

    private final List<String> names;
    private final List<RedisLock> locks;

    LocalMultiLock(List<String> sortedNames, List<RedisLock> locks) {
        this.names = List.copyOf(sortedNames);
        this.locks = List.copyOf(locks);
    }

    @Override
    public String getKey() {
        return String.join("+", names);
    }

    @Override
    public List<String> keys() {
        return names;
    }

    /** One step of taking all: {@code take} tries one lock; false or an exception gives back what was taken. */
    private interface Take {
        boolean take(RedisLock lock, long deadlineNanos) throws InterruptedException;
    }

    private boolean takeAll(long waitNanos, Take take) throws InterruptedException {
        long deadline = System.nanoTime() + waitNanos;
        List<RedisLock> taken = new ArrayList<>();
        try {
            for (RedisLock lock : locks) {
                if (!take.take(lock, deadline)) {
                    giveBack(taken, null);
                    return false;
                }
                taken.add(lock);
            }
            return true;
        } catch (InterruptedException | RuntimeException e) {
            giveBack(taken, e);
            throw e;
        }
    }

    private static void giveBack(List<RedisLock> taken, Throwable cause) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).unlock();
            } catch (RuntimeException e) {
                if (cause != null) {
                    cause.addSuppressed(e);
                }
            }
        }
    }

    private void uninterruptibly(Take take) {
        try {
            takeAll(0, take);
        } catch (InterruptedException e) {
            throw new IllegalStateException("not reached: uninterruptible", e);
        }
    }

    @Override
    public void lock() {
        uninterruptibly((lock, deadline) -> {
            lock.lock();
            return true;
        });
    }

    @Override
    public void lock(Duration lease) {
        uninterruptibly((lock, deadline) -> {
            lock.lock(lease);
            return true;
        });
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        takeAll(0, (lock, deadline) -> {
            lock.lockInterruptibly();
            return true;
        });
    }

    @Override
    public boolean tryLock() {
        try {
            return takeAll(0, (lock, deadline) -> lock.tryLock());
        } catch (InterruptedException e) {
            throw new IllegalStateException("not reached: no wait", e);
        }
    }

    @Override
    public boolean tryLock(Duration waitTime) throws InterruptedException {
        return tryLock(waitTime, null);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration lease) throws InterruptedException {
        requireWait(waitTime);
        return takeAll(
                waitTime.toNanos(),
                (lock, deadline) -> lock.tryLock(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), lease));
    }

    private void requireWait(Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException(
                    "waitTime of multi-lock '" + getKey() + "' must not be negative, was " + waitTime);
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
    }

    /** Releases every lock in reverse order; the first failure is thrown after all were tried. */
    @Override
    public void unlock() {
        unlock(Duration.ZERO);
    }

    /** As {@link #unlock()}, each name kept taken until {@code holdAtLeast} after its grant. */
    @Override
    public void unlock(Duration holdAtLeast) {
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

    @Override
    public CompletionStage<LockHandle> lockAsync() {
        return MultiKeyHandle.granted(MultiKeyHandle.acquire(locks, null, null), LockHandle::unlockAsync);
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime) {
        return tryLockAsync(waitTime, null);
    }

    /** All or nothing, in sorted order, as {@link #tryLock(Duration, Duration)}, without a thread; the handle keeps each name's token. */
    @Override
    public CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime, @Nullable Duration lease) {
        requireWait(waitTime);
        return MultiKeyHandle.acquire(locks, waitTime, lease);
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

    @Override
    public boolean isLocked() {
        return locks.stream().anyMatch(RedisLock::isLocked);
    }

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

    @Override
    public boolean forceUnlock() {
        boolean any = false;
        for (RedisLock lock : locks) {
            any |= lock.forceUnlock();
        }
        return any;
    }
}
