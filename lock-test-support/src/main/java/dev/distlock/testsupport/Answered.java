package dev.distlock.testsupport;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * Single attempts whose asserted outcome is the store's answer, not whether it came in time. A lock's try
 * without a wait still gives Redis a short step to answer (200 ms in lock-core); a loaded host can miss
 * that, and the try then fails as unanswered instead of granted or busy. Such a try is sent again, as a new
 * single attempt, until one is answered, within {@link Waits#GRANTED}; any other outcome, a refusal
 * included, is the answer.
 *
 * <pre>{@code
 * boolean got = Answered.get(LockUnavailableException.class, lock::tryLock);
 * }</pre>
 */
public final class Answered {

    private Answered() {}

    /**
     * What {@code attempt} returns or throws once answered: sent again while it fails with {@code unanswered}
     * (itself, or as the cause of a future's failure), up to {@link Waits#GRANTED}.
     */
    public static <T> T call(Class<? extends Exception> unanswered, Callable<T> attempt) throws Exception {
        long deadline = System.nanoTime() + Waits.GRANTED.toNanos();
        while (true) {
            try {
                return attempt.call();
            } catch (Exception e) {
                boolean resend = unanswered.isInstance(e)
                        || ((e instanceof ExecutionException || e instanceof CompletionException)
                                && unanswered.isInstance(e.getCause()));
                if (!resend || System.nanoTime() - deadline > 0) {
                    throw e;
                }
            }
        }
    }

    /** {@link #call} for an attempt that throws no checked exception. */
    public static <T> T get(Class<? extends RuntimeException> unanswered, Supplier<T> attempt) {
        try {
            return call(unanswered, attempt::get);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("a Supplier threw a checked exception", e);
        }
    }
}
