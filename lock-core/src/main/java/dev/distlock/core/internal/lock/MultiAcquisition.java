package dev.distlock.core.internal.lock;

import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.support.Durations;
import dev.distlock.core.internal.support.Futures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A multi-lock's acquisition for a handle: takes the names one after the other, in sorted order, within
 * one wait, without blocking a thread; all or nothing.
 */
final class MultiAcquisition {

    private final String name;
    private final List<RedisLock> locks;
    private final long deadline;
    private final boolean forever;
    private final @Nullable Duration lease;
    private final List<LockHandle> taken;
    private final AtomicReference<CompletableFuture<?>> step;
    private final CompletableFuture<Optional<LockHandle>> result;

    private MultiAcquisition(
            String name,
            List<RedisLock> locks,
            long deadline,
            boolean forever,
            @Nullable Duration lease,
            List<LockHandle> taken,
            AtomicReference<CompletableFuture<?>> step,
            CompletableFuture<Optional<LockHandle>> result) {
        this.name = name;
        this.locks = locks;
        this.deadline = deadline;
        this.forever = forever;
        this.lease = lease;
        this.taken = taken;
        this.step = step;
        this.result = result;
    }

    /**
     * Takes the names one after the other, in sorted order, within one wait; all or nothing: when one
     * cannot be had, those taken are released. Ending the result before it is done (a cancel, or the
     * caller's {@code orTimeout} or {@code complete}) cancels the name being waited for and releases the
     * others.
     */
    static CompletableFuture<Optional<LockHandle>> start(
            String name, List<RedisLock> locks, @Nullable Duration wait, @Nullable Duration lease) {
        long deadline = Durations.deadline(System.nanoTime(), wait);
        List<LockHandle> taken = new ArrayList<>();
        CompletableFuture<Optional<LockHandle>> result = new CompletableFuture<>();
        AtomicReference<CompletableFuture<?>> step = new AtomicReference<>();
        result.whenComplete((handle, error) -> {
            CompletableFuture<?> current = step.get();
            if (current != null && !current.isDone()) {
                current.cancel(true); // ended by the caller: its step fails, which releases what was taken
            }
        });
        new MultiAcquisition(name, locks, deadline, wait == null, lease, taken, step, result).takeNext(0);
        return result;
    }

    private void takeNext(int index) {
        if (index == locks.size()) {
            if (!result.complete(Optional.of(new MultiHandle(name, taken)))) {
                MultiHandle.releaseAll(taken); // cancelled meanwhile
            }
            return;
        }
        RedisLock lock = locks.get(index);
        // Each step is cancelled with the result, and the cancel must reach the lock's own acquisition: a stage
        // derived with thenApply would swallow it, and the endless wait it left behind would take the lock later
        // for nobody (the watchdog renewing it for ever). A grant made as it is cancelled is given back.
        CompletableFuture<Optional<LockHandle>> next = forever
                ? Futures.derive(lock.lockAsync().toCompletableFuture(), Optional::of, LockHandle::unlockAsync)
                : lock.tryLockAsync(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), lease)
                        .toCompletableFuture();
        step.set(next);
        if (result.isDone()) {
            next.cancel(true); // ended before this step was set, so the result's completion did not see it
        }
        next.whenComplete((handle, error) -> {
            if (error == null && handle.isPresent()) {
                taken.add(handle.get());
                if (result.isDone()) {
                    MultiHandle.releaseAll(taken);
                } else {
                    takeNext(index + 1);
                }
                return;
            }
            MultiHandle.releaseAll(taken); // all or nothing
            if (error != null) {
                result.completeExceptionally(RedisFailures.unwrap(error));
            } else {
                result.complete(Optional.empty());
            }
        });
    }
}
