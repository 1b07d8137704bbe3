package dev.distlock.spring;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * The fencing token of the {@code @DistributedLock} method running on this thread, so the method can
 * hand it to the resource it protects. The resource keeps the highest token it has accepted and
 * refuses smaller ones: a holder that lost its lock while paused cannot overwrite a newer holder's work.
 *
 * <pre>{@code
 * @DistributedLock(key = "'stock:' + #sku")
 * public void book(String sku) {
 *     long token = LockContext.currentToken();
 *     int updated = jdbc.update("UPDATE stock SET qty = qty - 1, fence = ? WHERE sku = ? AND fence <= ?", token, sku, token);
 *     if (updated == 0) throw new IllegalStateException("a newer lock holder has written " + sku);
 * }
 * }</pre>
 *
 * Nested annotated methods see their own lock's token; the outer one is restored when they return.
 */
public final class LockContext {

    private static final ThreadLocal<Deque<Map<String, Long>>> FRAMES = ThreadLocal.withInitial(ArrayDeque::new);

    private LockContext() {}

    /**
     * The fencing token of the innermost {@code @DistributedLock} method on this thread (for a
     * multi-key lock, the largest of its tokens).
     *
     * @throws IllegalStateException when no {@code @DistributedLock} method is running on this thread
     */
    public static long currentToken() {
        return currentTokens().values().stream()
                .mapToLong(Long::longValue)
                .max()
                .orElseThrow();
    }

    /**
     * The fencing token of each key of the innermost {@code @DistributedLock} method on this thread.
     *
     * @throws IllegalStateException when no {@code @DistributedLock} method is running on this thread
     */
    public static Map<String, Long> currentTokens() {
        Map<String, Long> frame = FRAMES.get().peek();
        if (frame == null) {
            throw new IllegalStateException(
                    "No @DistributedLock method is running on this thread, so there is no fencing token;"
                            + " call LockContext from inside the annotated method (not from another thread)");
        }
        return frame;
    }

    /** Used by the {@code @DistributedLock} advisor once the lock is held; not for application code. */
    public static void enter(Map<String, Long> tokens) {
        FRAMES.get().push(Map.copyOf(tokens));
    }

    /** Used by the {@code @DistributedLock} advisor when the method returns, before release; not for application code. */
    public static void exit() {
        Deque<Map<String, Long>> frames = FRAMES.get();
        frames.pop();
        if (frames.isEmpty()) {
            FRAMES.remove();
        }
    }
}
