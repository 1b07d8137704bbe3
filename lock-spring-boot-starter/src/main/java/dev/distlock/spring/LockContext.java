package dev.distlock.spring;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;

/**
 * The fencing token of the {@code @DistributedLock} method running on this thread, so the method can
 * hand it to the resource it protects. The resource keeps the highest token it has accepted and
 * refuses smaller ones: a holder that lost its lock while paused cannot overwrite a newer holder's work.
 * {@link #fence()} does that in one line, on the application's database or Redis; by hand:
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

    private static final ThreadLocal<Deque<Frame>> FRAMES = ThreadLocal.withInitial(ArrayDeque::new);

    /** One running method's tokens, and where its fences are kept. */
    private record Frame(Map<String, Long> tokens, LockFence.Stores stores) {}

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
        return frame().tokens();
    }

    /**
     * The fence of the innermost {@code @DistributedLock} method on this thread, presenting its
     * {@link #currentToken() token}: {@code LockContext.fence().check("order:" + id)} in the method's transaction
     * makes the database refuse the write once a newer holder has written.
     *
     * @throws IllegalStateException when no {@code @DistributedLock} method is running on this thread
     */
    public static LockFence fence() {
        return new LockFence(currentToken(), frame().stores());
    }

    /**
     * The fence of one key of a multi-key {@code @DistributedLock} method, presenting that key's token.
     *
     * @throws IllegalStateException when no such method is running on this thread
     * @throws IllegalArgumentException when the method does not lock {@code key}
     */
    public static LockFence fence(String key) {
        Long token = currentTokens().get(key);
        if (token == null) {
            throw new IllegalArgumentException("the running @DistributedLock method does not lock '" + key
                    + "'; it locks " + currentTokens().keySet());
        }
        return new LockFence(token, frame().stores());
    }

    private static Frame frame() {
        Frame frame = FRAMES.get().peek();
        if (frame == null) {
            throw new IllegalStateException(
                    "No @DistributedLock method is running on this thread, so there is no fencing token;"
                            + " call LockContext from inside the annotated method (not from another thread)");
        }
        return frame;
    }

    /** Used by the {@code @DistributedLock} advisor once the lock is held; not for application code. */
    public static void enter(Map<String, Long> tokens) {
        enter(tokens, LockFence.Stores.NONE);
    }

    /** Used by the {@code @DistributedLock} advisor once the lock is held, with where fences are kept; not for application code. */
    public static void enter(Map<String, Long> tokens, LockFence.Stores stores) {
        FRAMES.get().push(new Frame(Map.copyOf(tokens), stores));
    }

    /** Used by the {@code @DistributedLock} advisor when the method returns, before release; not for application code. */
    public static void exit() {
        Deque<Frame> frames = FRAMES.get();
        frames.pop();
        if (frames.isEmpty()) {
            FRAMES.remove();
        }
    }
}
