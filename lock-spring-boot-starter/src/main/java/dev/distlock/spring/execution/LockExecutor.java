package dev.distlock.spring.execution;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockException;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockNameException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.metrics.LockInstrumentation;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.spring.metrics.RecordedByStarter;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs work inside a lock: the one code path of {@code @DistributedLock} and {@code LockTemplate},
 * so both wait, instrument, hand out fencing tokens, release and report a lost lease the same way.
 * Infrastructure of the starter, not API.
 */
public final class LockExecutor {

    private static final Logger log = LoggerFactory.getLogger(LockExecutor.class);

    private final LockSource source;
    private final ActiveHolds holds;
    private final Supplier<LockInstrumentation> instrumentation;
    private final boolean throwOnLeaseLost;
    private final boolean interruptOnLeaseLost;

    /**
     * @param holds where holds are listed while they run, for the Actuator endpoint
     * @param instrumentation meters and observations of every call, looked up on the first call
     * @param throwOnLeaseLost whether work whose lock was lost throws LockLeaseExpiredException on return
     * @param interruptOnLeaseLost whether the lock client interrupts holders (then the flag is cleared on return)
     */
    public LockExecutor(LockSource source, ActiveHolds holds, Supplier<LockInstrumentation> instrumentation, boolean throwOnLeaseLost,
            boolean interruptOnLeaseLost) {
        this.source = source;
        this.holds = holds;
        this.instrumentation = SingletonSupplier.of(instrumentation);
        this.throwOnLeaseLost = throwOnLeaseLost;
        this.interruptOnLeaseLost = interruptOnLeaseLost;
    }

    /**
     * Runs {@code work} while holding the request's lock.
     *
     * @param whenBusy the result when the lock stays busy for the whole wait; {@code null} to throw
     *        {@link LockAcquisitionException} instead
     */
    public <T> T execute(LockRequest request, LockedCall<T> work, Supplier<T> whenBusy) throws Throwable {
        RedisLock lock = lockFor(request);
        String key = lock instanceof RedisMultiLock multi ? String.join(", ", multi.keys()) : request.keys().get(0);
        LockInstrumentation.Acquisition acquisition = instrumentation.get().acquiring(request.label(), request.metricType());
        boolean acquired;
        try {
            acquired = RecordedByStarter.call(() -> acquire(lock, request));
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
            throw new LockAcquisitionException(key, request.waitTime(), "Lock '" + key + "' for " + request.caller()
                    + " is held elsewhere and was not released within " + request.waitTime().toMillis() + " ms", null);
        }
        LockInstrumentation.Holding holding = acquisition.acquired();
        Map<String, Long> tokens;
        try {
            tokens = lock instanceof RedisMultiLock multi ? multi.fencingTokens() : Map.of(key, lock.currentFencingToken());
        } catch (RuntimeException e) { // the hold was lost already: give it back, say so
            release(lock, request, e, holding);
            throw e;
        }
        Throwable failure = null;
        long listed = holds.add(request, tokens, lock);
        LockContext.enter(tokens);
        try {
            return work.call();
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            LockContext.exit();
            holds.remove(listed);
            release(lock, request, failure, holding);
        }
    }

    /** The core rejects bad names (too long, control characters); say which caller produced one and what to change. */
    private RedisLock lockFor(LockRequest request) {
        try {
            return request.multi() ? source.multiLock(request.keys(), request.label())
                    : source.lock(request.type(), request.redlock(), request.keys().get(0), request.label());
        } catch (IllegalArgumentException e) {
            String advice = e instanceof LockNameException name && name.problem() == LockNameException.Problem.TOO_LONG
                    ? "; shorten the key or raise distributed-lock.max-key-length"
                    : "";
            throw new IllegalArgumentException(describe(request) + " cannot lock: " + e.getMessage() + advice, e);
        }
    }

    private static String describe(LockRequest request) {
        return request.caller().startsWith("LockTemplate") ? request.caller() : "@DistributedLock on " + request.caller();
    }

    private static boolean acquire(RedisLock lock, LockRequest request) {
        try {
            return lock.tryLock(request.waitTime(), request.leaseTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(lock.getKey(), request.waitTime(),
                    "Interrupted while waiting for lock '" + lock.getKey() + "' for " + request.caller(), e);
        } catch (LockUnavailableException e) {
            // Not "busy": nobody knows who holds the lock. A distinct type, so callers can answer 503 rather than 409.
            throw new LockUnavailableException("Redis did not answer while " + request.caller() + " waited up to "
                    + request.waitTime().toMillis() + " ms for lock '" + lock.getKey() + "': " + e.getMessage(), e);
        } catch (LockException e) {
            throw new LockException("Redis failed while acquiring lock '" + lock.getKey() + "' for " + request.caller() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Releases after the work; a failure to release never hides the work's own exception. */
    private void release(RedisLock lock, LockRequest request, Throwable failure, LockInstrumentation.Holding holding) {
        LockLeaseExpiredException lost = null;
        try {
            unlockRecorded(lock);
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
            // lock frees itself with its lease at the latest. Failing a finished call for that would mislead the caller.
            log.warn("Could not confirm the release of lock '{}' after {}: {}", lock.getKey(), request.caller(), e.getMessage());
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

    private static void unlockRecorded(RedisLock lock) {
        try {
            RecordedByStarter.call(() -> {
                lock.unlock();
                return null;
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // unlock throws no checked exception
        }
    }
}
