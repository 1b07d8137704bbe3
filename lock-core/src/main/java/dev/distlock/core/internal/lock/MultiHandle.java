package dev.distlock.core.internal.lock;

import dev.distlock.core.AbstractLockHandle;
import dev.distlock.core.LockHandle;
import dev.distlock.core.internal.redis.RedisFailures;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The handle of a multi-lock: one handle per name, released together (in reverse order), once. */
final class MultiHandle extends AbstractLockHandle {

    private final String key;
    private final List<LockHandle> handles;

    MultiHandle(String key, List<LockHandle> handles) {
        this.key = key;
        this.handles = List.copyOf(handles);
    }

    @Override
    public String key() {
        return key;
    }

    /** The largest of the names' tokens. */
    @Override
    public long fencingToken() {
        return handles.stream().mapToLong(LockHandle::fencingToken).max().orElseThrow();
    }

    /** Each name's token, in locking order. */
    @Override
    public Map<String, Long> fencingTokens() {
        Map<String, Long> tokens = new LinkedHashMap<>();
        handles.forEach(h -> tokens.put(h.key(), h.fencingToken()));
        return Collections.unmodifiableMap(tokens);
    }

    @Override
    public boolean isHeld() {
        return !released() && handles.stream().allMatch(LockHandle::isHeld);
    }

    /** Completes when any of the names' holds is lost. */
    @Override
    public CompletionStage<String> leaseLost() {
        CompletableFuture<String> any = new CompletableFuture<>();
        handles.forEach(h -> h.leaseLost().thenAccept(any::complete));
        return any.minimalCompletionStage();
    }

    /** Releases every name, in reverse order; fails with the first failure once all were tried. */
    @Override
    protected CompletableFuture<Void> release(Duration holdAtLeast) {
        return releaseAll(handles, holdAtLeast);
    }

    @Override
    protected void checkHoldAtLeast(Duration holdAtLeast) {
        handles.forEach(h -> {
            if (h instanceof AbstractLockHandle own) {
                checkHoldAtLeastOf(own, holdAtLeast); // other handles check when released
            }
        });
    }

    /** Releases {@code handles} in reverse order; fails with the first failure (others suppressed) once all were tried. */
    static CompletableFuture<Void> releaseAll(List<LockHandle> handles) {
        return releaseAll(handles, Duration.ZERO);
    }

    private static CompletableFuture<Void> releaseAll(List<LockHandle> handles, Duration holdAtLeast) {
        CompletableFuture<Throwable> chain = CompletableFuture.completedFuture(null);
        for (int i = handles.size() - 1; i >= 0; i--) {
            LockHandle handle = handles.get(i);
            chain = chain.thenCompose(first -> handle.unlockAsync(holdAtLeast)
                    .toCompletableFuture()
                    .handle((ok, error) -> {
                        if (error == null) {
                            return first;
                        }
                        Throwable cause = RedisFailures.unwrap(error);
                        if (first == null) {
                            return cause;
                        }
                        first.addSuppressed(cause);
                        return first;
                    }));
        }
        return chain.thenApply(first -> {
            if (first != null) {
                throw RedisFailures.asLockException(first);
            }
            return null;
        });
    }
}
