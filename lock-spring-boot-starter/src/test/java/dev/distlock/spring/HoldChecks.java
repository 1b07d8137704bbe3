package dev.distlock.spring;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.testsupport.Answered;
import dev.distlock.testsupport.RedisServer;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Looks at a lock from outside the application under test: in Redis, and from another instance's client. */
final class HoldChecks {

    /** {@link dev.distlock.testsupport.Waits#GRANTED} as a property or annotation value: for calls that should be granted. */
    static final String WAIT_GRANTED = "30s";

    /** {@link dev.distlock.testsupport.Waits#RUNS_OUT} as a property or annotation value: for calls that should find the lock busy. */
    static final String WAIT_RUNS_OUT = "2s";

    private HoldChecks() {}

    /** Whether the lock key of {@code name} exists in Redis now. */
    static boolean lockedInRedis(RedisServer redis, String name) {
        return redis.command("EXISTS", "lock:{" + name + "}").equals(":1");
    }

    /**
     * Whether a caller of some client waits for {@code name} in Redis: its client recorded in the lock as
     * waiting ('~w') and listening on the lock's wake-up channel. A test that cancels or releases "while it
     * waits" waits for this first, so that the wait it means to end has begun.
     */
    static boolean waitedForInRedis(RedisServer redis, String name) {
        String lock = "lock:{" + name + "}";
        return redis.command("HEXISTS", lock, "~w").equals(":1")
                && !redis.query("PUBSUB", "NUMSUB", lock + ":channel").endsWith("\n:0");
    }

    /** The fencing token of the hold Redis has on {@code name} now. */
    static long tokenInRedis(RedisServer redis, String name) {
        return Long.parseLong(
                redis.query("HGET", "lock:{" + name + "}", "~token").trim());
    }

    /**
     * {@code otherInstance} takes {@code name} within {@link #TAKEN_SOON}, trying every few milliseconds;
     * fails if it cannot. A caller that gave up waiting may still be recorded as waiting when the lock is
     * released (it leaves in the background), and that release then reserves the lock for its instance
     * for up to 50 ms: free for others right after, not at the very instant.
     */
    static LockHandle takeElsewhereSoon(LockClient otherInstance, String name) throws InterruptedException {
        long until = System.nanoTime() + TAKEN_SOON.toNanos();
        while (true) {
            Optional<LockHandle> taken = tryElsewhere(otherInstance, name);
            if (taken.isPresent()) {
                return taken.get();
            }
            if (System.nanoTime() - until > 0) {
                throw new AssertionError("another instance could not take " + name + " within " + TAKEN_SOON);
            }
            Thread.sleep(5);
        }
    }

    /** Generous: the 50 ms reservation is all a free lock may wait for; the rest is room for a loaded host. */
    static final Duration TAKEN_SOON = Duration.ofSeconds(10);

    /**
     * One attempt by {@code otherInstance} to take {@code name} at once; sent again while Redis's answer does
     * not come within the step a try without a wait still gets ({@link Answered}): the outcome is Redis's.
     */
    static Optional<LockHandle> tryElsewhere(LockClient otherInstance, String name) {
        return Answered.get(
                LockUnavailableException.class,
                () -> otherInstance
                        .getLock(name)
                        .tryLockAsync(Duration.ZERO)
                        .toCompletableFuture()
                        .join());
    }

    /**
     * Tries every half second, until {@code call} is done, to take {@code name} from {@code otherInstance};
     * fails when it ever succeeds while the call is still running. The lock is released before the caller
     * sees the result, as an unlock in a finally block runs before the method returns, so a try that
     * succeeds just before the call is done is let pass if the call is done within {@link #RESULT_AFTER_RELEASE}:
     * a lock released early (when the method returned its publisher or future, say) is still caught, as the
     * call then goes on for its whole length.
     */
    static void nobodyElseTakesItUntilDone(LockClient otherInstance, String name, Future<?> call)
            throws InterruptedException {
        while (!call.isDone()) {
            Optional<LockHandle> stolen = tryElsewhere(otherInstance, name);
            boolean running = !call.isDone();
            stolen.ifPresent(LockHandle::unlock);
            if (stolen.isPresent() && running && !doneWithin(call, RESULT_AFTER_RELEASE)) {
                throw new AssertionError("another instance took " + name + " while the call was still running");
            }
            Thread.sleep(500); // sampling the lock from outside, not waiting for a condition
        }
    }

    /**
     * How long after its release a call's caller may see its result, on a loaded machine: half the 2-second
     * calls these checks watch, so a lock released when the call began is still caught.
     */
    static final Duration RESULT_AFTER_RELEASE = Duration.ofSeconds(1);

    private static boolean doneWithin(Future<?> call, Duration bound) throws InterruptedException {
        try {
            call.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            return true;
        } catch (TimeoutException e) {
            return false;
        }
    }
}
