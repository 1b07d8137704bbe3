package dev.distlock.core.testing;

import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisLock;
import dev.distlock.testsupport.Waits;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Single attempts whose asserted outcome is Redis's answer, not whether it came in time. A try without a wait
 * still gets one step of at least 200 ms ({@code RedisCalls.MIN_STEP_NANOS}) for Redis to answer; a loaded
 * host can miss that, and the try then fails with {@link LockUnavailableException} (and gives back what Redis
 * may have granted). Such a try is sent again, as a new single attempt, until Redis answers one, within
 * {@link Waits#GRANTED}. Any other outcome, a refusal included, is the answer.
 *
 * <pre>{@code
 * assertThat(OtherThread.call(() -> tryOnce(other.getLock(name)))).isFalse();
 * }</pre>
 */
public final class Attempts {

    private Attempts() {}

    /** {@code lock.tryLock()}, sent again while Redis's answer does not come in time. */
    public static boolean tryOnce(RedisLock lock) {
        try {
            return answered(lock::tryLock);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("tryLock() threw a checked exception", e);
        }
    }

    /**
     * What {@code attempt} returns or throws, once Redis answered it: sent again while it fails with
     * {@link LockUnavailableException} (itself, or as the cause of a future's failure), up to {@link Waits#GRANTED}.
     */
    public static <T> T answered(Callable<T> attempt) throws Exception {
        long deadline = System.nanoTime() + Waits.GRANTED.toNanos();
        while (true) {
            try {
                return attempt.call();
            } catch (LockUnavailableException | ExecutionException | CompletionException e) {
                boolean unanswered =
                        e instanceof LockUnavailableException || e.getCause() instanceof LockUnavailableException;
                if (!unanswered || System.nanoTime() - deadline > 0) {
                    throw e;
                }
            }
        }
    }
}
