package dev.distlock.spring.execution;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockNameException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.LockFence;
import dev.distlock.spring.metrics.LockInstrumentation;
import dev.distlock.spring.metrics.LockMetrics;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
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
    /** How the Actuator endpoint shows the owner of an async call's hold, which no thread owns. */
    private static final String ASYNC_OWNER = "(async call: owned by its lock handle)";

    private final LockSource source;
    private final ActiveHolds holds;
    private final Supplier<LockInstrumentation> instrumentation;
    private final boolean throwOnLeaseLost;
    private final boolean interruptOnLeaseLost;
    /** Whether work runs without any lock (distlock.enabled=false), as the annotation's methods then do. */
    private final boolean unlocked;
    /** Where async, reactive and Kotlin work is invoked once its lock is held. */
    private final Invoker invoker;
    /** Where LockContext.fence() keeps its fences. */
    private final LockFence.Stores fences;
    /** The check before a transaction commits, for reactive publishers; null without one. */
    private final Supplier<@Nullable BeforeCommitCheck> beforeCommitCheck;

    /**
     * @param holds where holds are listed while they run, for the Actuator endpoint
     * @param instrumentation meters and observations of every call, looked up on the first call
     * @param throwOnLeaseLost whether work whose lock was lost throws LockLeaseExpiredException on return
     * @param interruptOnLeaseLost whether the lock client interrupts holders (then the flag is cleared on return)
     * @param invoker where async, reactive and Kotlin work is invoked once its lock is held
     * @param fences where {@link LockContext#fence()} keeps its fences (the application's DataSource and Redis)
     * @param beforeCommitCheck the check before a transaction commits, which reactive publishers reach through
     *        their Reactor Context; looked up when one asks ({@code null}: none, the check is switched off)
     */
    public LockExecutor(
            LockSource source,
            ActiveHolds holds,
            Supplier<LockInstrumentation> instrumentation,
            boolean throwOnLeaseLost,
            boolean interruptOnLeaseLost,
            Invoker invoker,
            LockFence.Stores fences,
            Supplier<@Nullable BeforeCommitCheck> beforeCommitCheck) {
        this.source = source;
        this.holds = holds;
        this.instrumentation = SingletonSupplier.of(instrumentation);
        this.throwOnLeaseLost = throwOnLeaseLost;
        this.interruptOnLeaseLost = interruptOnLeaseLost;
        this.unlocked = false;
        this.invoker = invoker;
        this.fences = fences;
        this.beforeCommitCheck = SingletonSupplier.ofNullable(beforeCommitCheck);
    }

    private LockExecutor() {
        this.source = null;
        this.holds = new ActiveHolds();
        this.instrumentation = () -> LockInstrumentation.NONE;
        this.throwOnLeaseLost = false;
        this.interruptOnLeaseLost = false;
        this.unlocked = true;
        this.invoker = Invoker.create(false); // starts no thread until a call needs one
        this.fences = LockFence.Stores.NONE;
        this.beforeCommitCheck = () -> null;
    }

    /**
     * With {@code distlock.enabled=false}: runs the work at once, without a lock, metrics or fencing token, as
     * the annotation's methods then run; so a LockTemplate stays injectable when locks are switched off.
     */
    public static LockExecutor unlocked() {
        return new LockExecutor();
    }

    /**
     * Runs {@code work} while holding the request's lock.
     *
     * @param whenBusy the result when the lock stays busy for the whole wait; {@code null} to throw
     *        {@link LockAcquisitionException} instead
     */
    public <T> T execute(LockRequest request, LockedCall<T> work, Supplier<T> whenBusy) throws Throwable {
        if (unlocked) {
            return work.call();
        }
        RedisLock lock = lockFor(request);
        String key = LockErrors.keyOf(lock, request);
        return new BlockingCall(instrumentation.get(), holds, fences, throwOnLeaseLost, interruptOnLeaseLost)
                .run(request, work, whenBusy, lock, key);
    }

    /**
     * Runs {@code work} once the request's lock is held, without blocking the calling thread: waits with
     * the lock's async methods, invokes {@code work} on a thread of the starter's once the lock is held
     * (with {@link LockContext} and the caller's context, see {@link Invoker}, set around the invocation), holds the lock until the stage it returns
     * completes, then releases it through the hold's handle, once. Cancelling the returned future gives
     * the wait up, or cancels the work's stage and releases. With distlock.on-lease-lost=interrupt
     * a lost lease cancels the work's stage.
     *
     * @param whenBusy the result when the lock stays busy for the whole wait; {@code null} to fail with
     *        {@link LockAcquisitionException}
     */
    public <T> CompletableFuture<T> executeAsync(
            LockRequest request, LockedCall<? extends CompletionStage<T>> work, Supplier<T> whenBusy) {
        return new StageCall<T>(request, work, interruptOnLeaseLost)
                .start(acquireAsync(request), invoker.withCallerContext(), whenBusy, () -> busy(request));
    }

    /** The exception of an async call whose lock stayed busy for the whole wait, as the blocking path throws it. */
    public LockAcquisitionException busy(LockRequest request) {
        return LockErrors.busy(
                request,
                request.multi()
                        ? String.join(", ", request.keys().stream().sorted().toList())
                        : request.keys().get(0));
    }

    /** Where async, reactive and Kotlin work is invoked once its lock is held. */
    Invoker invoker() {
        return invoker;
    }

    /** The check before a transaction commits, as reactive publishers reach it. */
    Supplier<@Nullable BeforeCommitCheck> beforeCommitCheck() {
        return beforeCommitCheck;
    }

    /** Stops the idle invoking threads when the application closes (Spring calls it as the bean's destroy method). */
    public void close() {
        invoker.close();
    }

    /** Whether a lost lease cancels async work (distlock.on-lease-lost=interrupt). */
    public boolean cancelsOnLeaseLost() {
        return interruptOnLeaseLost;
    }

    /**
     * Acquires the request's lock for an async call, without blocking a thread: completes with the
     * hold, empty when the wait ran out (recorded as a timeout), or with the exception the blocking path
     * would throw. Cancelling the future gives the wait up in Redis; a hold granted in the same instant is released.
     */
    public CompletableFuture<Optional<AsyncHold>> acquireAsync(LockRequest request) {
        if (unlocked) {
            return CompletableFuture.failedFuture(new IllegalStateException(
                    "distlock.enabled=false: " + request.caller() + " cannot take a lock, locks are switched off"));
        }
        RedisLock lock;
        try {
            lock = lockFor(request);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        String key = LockErrors.keyOf(lock, request);
        LockInstrumentation.Acquisition acquisition =
                instrumentation.get().acquiring(request.label(), request.metricType());
        CompletableFuture<Optional<LockHandle>> waiting;
        try {
            waiting = lock.tryLockAsync(request.waitTime(), request.leaseTime()).toCompletableFuture();
        } catch (RuntimeException e) {
            acquisition.failed(LockMetrics.ERROR, e);
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Optional<AsyncHold>> result = new CompletableFuture<>();
        result.whenComplete((hold, error) -> {
            if (result.isCancelled()) {
                waiting.cancel(true); // the core gives the wait up in Redis
            }
        });
        waiting.whenComplete((handle, error) -> {
            if (error != null) {
                Throwable cause =
                        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                RuntimeException failure =
                        cause instanceof CancellationException c ? c : LockErrors.inContext(lock, request, cause);
                failedAsync(
                        acquisition,
                        cause instanceof CancellationException
                                ? LockMetrics.CANCELLED
                                : cause instanceof LockUnavailableException
                                        ? LockMetrics.UNAVAILABLE
                                        : LockMetrics.ERROR,
                        failure,
                        lock);
                result.completeExceptionally(failure);
            } else if (handle.isEmpty()) {
                failedAsync(acquisition, LockMetrics.TIMEOUT, null, lock);
                result.complete(Optional.empty());
            } else {
                LockInstrumentation.Holding holding;
                try {
                    holding = acquisition.acquiredAsync();
                } catch (RuntimeException | Error e) {
                    // an observation handler of the application failed: give the lock back, fail the call
                    LockErrors.giveBackAfter(e, () -> handle.get().unlockAsync());
                    result.completeExceptionally(e);
                    return;
                }
                Map<String, Long> tokens = handle.get().fencingTokens(); // every key's, for LockContext.currentTokens()
                AsyncHold hold = new AsyncHold(
                        request,
                        handle.get(),
                        tokens,
                        holding,
                        holds,
                        holds.add(request, tokens, lock, ASYNC_OWNER, handle.get()::isHeld),
                        fences,
                        throwOnLeaseLost);
                if (!result.complete(Optional.of(hold))) {
                    hold.release(new CancellationException(
                            "cancelled while the lock was being granted")); // nobody else would
                }
            }
        });
        return result;
    }

    /** The core rejects bad names (too long, control characters); say which caller produced one and what to change. */
    private RedisLock lockFor(LockRequest request) {
        LockSource source = request.maxHold() == null ? this.source : this.source.withMaxHold(request.maxHold());
        try {
            if (request.permits() > 0) {
                return source.permits(request.type(), request.keys().get(0), request.permits(), request.label());
            }
            return request.multi()
                    ? source.multiLock(request.keys(), request.label())
                    : source.lock(
                            request.type(), request.redlock(), request.keys().get(0), request.label());
        } catch (IllegalArgumentException e) {
            String advice = e instanceof LockNameException name && name.problem() == LockNameException.Problem.TOO_LONG
                    ? "; shorten the key or raise distlock.max-key-length"
                    : "";
            throw new IllegalArgumentException(
                    LockErrors.describe(request) + " cannot lock: " + e.getMessage() + advice, e);
        }
    }

    /**
     * Records an async acquisition that ended without the lock. An observation handler of the application
     * failing here must not keep the caller from its outcome (the callback would end without completing it):
     * its exception goes with the call's failure, or to the log.
     */
    private static void failedAsync(
            LockInstrumentation.Acquisition acquisition, String outcome, Throwable failure, RedisLock lock) {
        try {
            acquisition.failed(outcome, failure);
        } catch (RuntimeException | Error e) {
            if (failure != null) {
                failure.addSuppressed(e);
            } else {
                log.warn("Observation of lock '{}' failed as its wait ended: {}", lock.getKey(), e.toString());
            }
        }
    }
}
