package dev.distlock.core.testing;

import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisLock;
import dev.distlock.testsupport.Answered;
import dev.distlock.testsupport.Waits;
import java.util.concurrent.Callable;

/**
 * Single attempts whose asserted outcome is Redis's answer, not whether it came in time. A try without a wait
 * still gets one step of at least 200 ms ({@code RedisConnections.MIN_STEP_NANOS}) for Redis to answer; a loaded
 * host can miss that, and the try then fails with {@link LockUnavailableException} (and gives back what Redis
 * may have granted). Such a try is sent again, as a new single attempt, until Redis answers one, within
 * {@link Waits#GRANTED} ({@link Answered}). Any other outcome, a refusal included, is the answer.
 *
 * <pre>{@code
 * assertThat(OtherThread.call(() -> tryOnce(other.getLock(name)))).isFalse();
 * }</pre>
 */
public final class Attempts {

    private Attempts() {}

    /** {@code lock.tryLock()}, sent again while Redis's answer does not come in time. */
    public static boolean tryOnce(RedisLock lock) {
        return Answered.get(LockUnavailableException.class, lock::tryLock);
    }

    /**
     * What {@code attempt} returns or throws, once Redis answered it: sent again while it fails with
     * {@link LockUnavailableException} (itself, or as the cause of a future's failure), up to {@link Waits#GRANTED}.
     */
    public static <T> T answered(Callable<T> attempt) throws Exception {
        return Answered.call(LockUnavailableException.class, attempt);
    }
}
