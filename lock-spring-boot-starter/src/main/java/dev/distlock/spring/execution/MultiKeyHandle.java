package dev.distlock.spring.execution;

import dev.distlock.core.LockException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The handles of several keys taken as one, without a thread: one after the other in the order given
 * (sorted, so callers cannot deadlock), within one wait, all or nothing; released together in reverse
 * order, exactly once. Unlike lock-core's multi-lock handle it keeps every key's fencing token
 * ({@link #fencingTokens()}), which {@code keys = {...}} calls hand to {@code LockContext}.
 * Infrastructure of the starter, not API.
 */
public final class MultiKeyHandle implements LockHandle {

    private final String key;
    private final List<LockHandle> handles;
    private final Map<String, Long> tokens;
    private final AtomicBoolean released = new AtomicBoolean();

    private MultiKeyHandle(List<LockHandle> handles) {
        this.handles = List.copyOf(handles);
        this.key = String.join("+", handles.stream().map(LockHandle::key).toList());
        Map<String, Long> byKey = new LinkedHashMap<>();
        handles.forEach(h -> byKey.put(h.key(), h.fencingToken()));
        this.tokens = Collections.unmodifiableMap(byKey);
    }

    /**
     * Takes {@code locks} (one per key, in locking order) with their async methods within {@code wait}
     * ({@code null}: for as long as it takes), each with {@code lease} ({@code null}: the watchdog's).
     * Completes empty when one of them stays busy (those taken are released); cancelling the result
     * cancels the wait in progress and releases those taken.
     */
    public static CompletableFuture<Optional<LockHandle>> acquire(
            List<? extends RedisLock> locks, @Nullable Duration wait, @Nullable Duration lease) {
        long deadline = wait == null ? 0 : System.nanoTime() + Math.min(wait.toNanos(), Long.MAX_VALUE / 4);
        CompletableFuture<Optional<LockHandle>> result = new CompletableFuture<>();
        AtomicReference<CompletableFuture<?>> step = new AtomicReference<>();
        result.whenComplete((handle, error) -> {
            CompletableFuture<?> current = step.get();
            if (result.isCancelled() && current != null) {
                current.cancel(false);
            }
        });
        takeNext(locks, 0, deadline, wait == null, lease, new ArrayList<>(), step, result);
        return result;
    }

    /**
     * The handle {@code waiting} grants, for a wait without end ({@code lockAsync}): cancelling the result
     * cancels {@code waiting}, and a handle granted as the result was cancelled goes to {@code giveBack}.
     */
    public static CompletableFuture<LockHandle> granted(
            CompletableFuture<Optional<LockHandle>> waiting, Consumer<LockHandle> giveBack) {
        CompletableFuture<LockHandle> result = new CompletableFuture<>();
        result.whenComplete((handle, error) -> {
            if (result.isCancelled()) {
                waiting.cancel(false);
            }
        });
        waiting.whenComplete((handle, error) -> {
            if (error != null) {
                result.completeExceptionally(unwrap(error));
            } else if (!result.complete(handle.orElseThrow())) {
                giveBack.accept(handle.get());
            }
        });
        return result;
    }

    private static void takeNext(
            List<? extends RedisLock> locks,
            int index,
            long deadline,
            boolean forever,
            @Nullable Duration lease,
            List<LockHandle> taken,
            AtomicReference<CompletableFuture<?>> step,
            CompletableFuture<Optional<LockHandle>> result) {
        if (index == locks.size()) {
            if (!result.complete(Optional.of(new MultiKeyHandle(taken)))) {
                releaseAll(taken, Duration.ZERO); // cancelled meanwhile
            }
            return;
        }
        RedisLock lock = locks.get(index);
        CompletableFuture<Optional<LockHandle>> next;
        try {
            next = (forever
                            ? lock.lockAsync().thenApply(Optional::of)
                            : lock.tryLockAsync(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), lease))
                    .toCompletableFuture();
        } catch (RuntimeException e) {
            releaseAll(taken, Duration.ZERO);
            result.completeExceptionally(e);
            return;
        }
        step.set(next);
        if (result.isCancelled()) {
            next.cancel(false);
        }
        next.whenComplete((handle, error) -> {
            if (error == null && handle.isPresent()) {
                taken.add(handle.get());
                if (result.isDone()) {
                    releaseAll(taken, Duration.ZERO);
                } else {
                    takeNext(locks, index + 1, deadline, forever, lease, taken, step, result);
                }
                return;
            }
            releaseAll(taken, Duration.ZERO); // all or nothing
            if (error != null) {
                result.completeExceptionally(unwrap(error));
            } else {
                result.complete(Optional.empty());
            }
        });
    }

    /** Each key's fencing token, in locking order. */
    public Map<String, Long> fencingTokens() {
        return tokens;
    }

    @Override
    public String key() {
        return key;
    }

    /** The largest of the keys' tokens. */
    @Override
    public long fencingToken() {
        return tokens.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    }

    @Override
    public boolean isHeld() {
        return !released.get() && handles.stream().allMatch(LockHandle::isHeld);
    }

    /** Completes when any of the keys' holds is lost. */
    @Override
    public CompletionStage<String> leaseLost() {
        CompletableFuture<String> any = new CompletableFuture<>();
        handles.forEach(h -> h.leaseLost().thenAccept(any::complete));
        return any.minimalCompletionStage();
    }

    @Override
    public void unlock() {
        try {
            unlockAsync().toCompletableFuture().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    @Override
    public CompletionStage<Void> unlockAsync() {
        return unlockAsync(Duration.ZERO);
    }

    /** Releases every key in reverse order; fails with the first failure (the others suppressed) once all were tried. */
    @Override
    public CompletionStage<Void> unlockAsync(Duration holdAtLeast) {
        if (!released.compareAndSet(false, true)) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "The handle of lock '" + key + "' was already released: a handle releases its hold exactly once"));
        }
        return releaseAll(handles, holdAtLeast);
    }

    @Override
    public void close() {
        if (!released.get()) {
            unlock();
        }
    }

    private static CompletableFuture<Void> releaseAll(List<LockHandle> handles, Duration holdAtLeast) {
        CompletableFuture<@Nullable Throwable> chain = CompletableFuture.completedFuture(null);
        for (int i = handles.size() - 1; i >= 0; i--) {
            LockHandle handle = handles.get(i);
            chain = chain.thenCompose(first -> {
                CompletableFuture<Void> released;
                try {
                    released = handle.unlockAsync(holdAtLeast).toCompletableFuture();
                } catch (RuntimeException e) {
                    released = CompletableFuture.failedFuture(e);
                }
                return released.handle((ok, error) -> {
                    if (error == null) {
                        return first;
                    }
                    Throwable cause = unwrap(error);
                    if (first == null) {
                        return cause;
                    }
                    first.addSuppressed(cause);
                    return first;
                });
            });
        }
        return chain.thenApply(first -> {
            if (first == null) {
                return null;
            }
            throw first instanceof RuntimeException r
                    ? r
                    : new LockException("Releasing " + handles + " failed", first);
        });
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    @Override
    public String toString() {
        return "MultiKeyHandle" + tokens.keySet() + (isHeld() ? "" : ", not held");
    }
}
