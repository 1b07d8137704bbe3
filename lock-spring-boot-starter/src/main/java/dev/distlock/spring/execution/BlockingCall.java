package dev.distlock.spring.execution;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockException;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.LockFence;
import dev.distlock.spring.metrics.LockInstrumentation;
import dev.distlock.spring.metrics.LockMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One blocking call inside its lock: waits on the calling thread, runs the work with {@link LockContext}
 * set, releases when it returns or throws, and reports a lost lease as the properties ask. The async and
 * reactive calls ({@link StageCall}, {@link ReactiveCall}) hold the lock through a handle instead.
 */
final class BlockingCall {

    private static final Logger log = LoggerFactory.getLogger(BlockingCall.class);

    private final LockInstrumentation instrumentation;
    private final ActiveHolds holds;
    private final LockFence.Stores fences;
    private final boolean throwOnLeaseLost;
    private final boolean interruptOnLeaseLost;

    BlockingCall(
            LockInstrumentation instrumentation,
            ActiveHolds holds,
            LockFence.Stores fences,
            boolean throwOnLeaseLost,
            boolean interruptOnLeaseLost) {
        this.instrumentation = instrumentation;
        this.holds = holds;
        this.fences = fences;
        this.throwOnLeaseLost = throwOnLeaseLost;
        this.interruptOnLeaseLost = interruptOnLeaseLost;
    }

    <T> T run(LockRequest request, LockedCall<T> work, Supplier<T> whenBusy, RedisLock lock, String key)
            throws Throwable {
        LockInstrumentation.Acquisition acquisition = instrumentation.acquiring(request.label(), request.metricType());
        boolean acquired;
        try {
            acquired = acquire(lock, request);
        } catch (LockUnavailableException e) {
            acquisition.failed(LockMetrics.UNAVAILABLE, e);
            throw e;
        } catch (Exception e) {
            acquisition.failed(LockMetrics.ERROR, e);
            throw e;
        }
        if (!acquired) {
            acquisition.failed(LockMetrics.TIMEOUT, null);
            if (whenBusy != null) {
                return whenBusy.get();
            }
            throw LockErrors.busy(request, key);
        }
        LockInstrumentation.Holding holding;
        try {
            holding = acquisition.acquired();
        } catch (RuntimeException | Error e) {
            // an observation handler of the application failed: the lock must not stay taken by nobody
            LockErrors.giveBackAfter(e, () -> lock.unlock(Duration.ZERO));
            throw e;
        }
        Map<String, Long> tokens;
        try {
            tokens = lock instanceof RedisMultiLock multi
                    ? multi.fencingTokens()
                    : Map.of(key, lock.currentFencingToken());
        } catch (RuntimeException e) { // the hold was lost already: give it back, say so
            throw lostBeforeTheWork(lock, e, holding);
        }
        Throwable failure = null;
        long listed = holds.add(request, tokens, lock);
        LockContext.enter(tokens, fences);
        holds.runsOnThread(listed);
        try {
            return work.call();
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            holds.leftThread();
            LockContext.exit();
            holds.remove(listed);
            release(lock, request, failure, holding);
        }
    }

    /**
     * The lease ran out between the grant and the work (a fixed lease shorter than a stall of this host): the
     * work never runs, and the caller gets what a lease lost during the work gives, the release's
     * {@link LockLeaseExpiredException}, whatever throw-on-lease-lost says (there is no result to return).
     */
    private RuntimeException lostBeforeTheWork(
            RedisLock lock, RuntimeException noToken, LockInstrumentation.Holding holding) {
        LockLeaseExpiredException lost = null;
        try {
            lock.unlock(Duration.ZERO);
            return noToken;
        } catch (LockLeaseExpiredException e) {
            lost = e;
            if (interruptOnLeaseLost) {
                Thread.interrupted(); // the interrupt was ours, to stop work that has not started
            }
            e.addSuppressed(noToken);
            return e;
        } catch (RuntimeException e) {
            noToken.addSuppressed(e);
            return noToken;
        } finally {
            holding.released(lost);
        }
    }

    private static boolean acquire(RedisLock lock, LockRequest request) {
        try {
            return lock.tryLock(request.waitTime(), request.leaseTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(
                    lock.getKey(),
                    request.waitTime(),
                    "Interrupted while waiting for lock '" + lock.getKey() + "' for " + request.caller(),
                    e);
        } catch (LockException e) {
            throw LockErrors.inContext(lock, request, e);
        }
    }

    /** Releases after the work; a failure to release never hides the work's own exception. */
    private void release(RedisLock lock, LockRequest request, Throwable failure, LockInstrumentation.Holding holding) {
        LockLeaseExpiredException lost = null;
        try {
            lock.unlock(request.holdAtLeast());
        } catch (LockLeaseExpiredException e) {
            lost = e;
            if (interruptOnLeaseLost) {
                Thread.interrupted(); // the interrupt was ours, to stop the work: do not leak it to the caller's thread
            }
            if (failure != null) {
                failure.addSuppressed(e);
            } else if (throwOnLeaseLost) {
                throw e;
            }
            // else: reported already (WARN, distributed.lock.lost, listeners); the caller gets the result
        } catch (LockUnavailableException e) {
            // The work is done and mutual exclusion held: the release is retried in the background and the
            // lock frees itself with its lease at the latest. Failing a finished call for that would mislead the
            // caller.
            log.warn(
                    "Could not confirm the release of lock '{}' after {}: {}",
                    lock.getKey(),
                    request.caller(),
                    e.getMessage());
            if (failure != null) {
                failure.addSuppressed(e);
            }
        } catch (RuntimeException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        } finally {
            holding.released(lost);
        }
    }
}
