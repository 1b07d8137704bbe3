package dev.distlock.spring.execution;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.LockFence;
import dev.distlock.spring.metrics.LockInstrumentation;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock of one async call ({@code CompletionStage}, {@code Mono}, {@code Flux}): owned by its
 * {@link LockHandle}, not by a thread, and released through it exactly once, from whatever thread
 * the call ends on. Infrastructure of the starter, not API.
 */
public final class AsyncHold {

    private static final Logger log = LoggerFactory.getLogger(AsyncHold.class);

    private final LockRequest request;
    private final LockHandle handle;
    private final Map<String, Long> tokens;
    private final LockInstrumentation.Holding holding;
    private final ActiveHolds holds;
    private final ActiveHolds.Entry listed;
    private final LockFence.Stores fences;
    private final boolean throwOnLeaseLost;
    private final AtomicBoolean released = new AtomicBoolean();
    private final CompletableFuture<Void> release = new CompletableFuture<>();
    /** Why the work was stopped for a lost lease (on-lease-lost=interrupt), or null while it was not. */
    private volatile String cutShort;

    AsyncHold(
            LockRequest request,
            LockHandle handle,
            Map<String, Long> tokens,
            LockInstrumentation.Holding holding,
            ActiveHolds holds,
            ActiveHolds.Entry listed,
            LockFence.Stores fences,
            boolean throwOnLeaseLost) {
        this.request = request;
        this.handle = handle;
        this.tokens = tokens;
        this.holding = holding;
        this.holds = holds;
        this.listed = listed;
        this.fences = fences;
        this.throwOnLeaseLost = throwOnLeaseLost;
    }

    /** The fencing token of each key. */
    public Map<String, Long> tokens() {
        return tokens;
    }

    /** The hold as listed for the Actuator endpoint and checked before a transaction commits. */
    public ActiveHolds.Entry listed() {
        return listed;
    }

    /** Completes with the reason when the hold is lost before it is released. */
    public CompletionStage<String> leaseLost() {
        return handle.leaseLost();
    }

    /**
     * Records that the work was stopped because the lease was lost ({@code reason}): it has no result to
     * give, so its release fails with {@link LockLeaseExpiredException} even when
     * distlock.throw-on-lease-lost=false, instead of passing the stopped work off as a success.
     */
    public void cutShort(String reason) {
        cutShort = reason;
    }

    /**
     * Invokes {@code call} with this hold's tokens in {@link LockContext} and its observation in scope,
     * both on this thread and only while {@code call} runs.
     */
    public <T> T invoke(LockedCall<T> call) throws Throwable {
        LockContext.enter(tokens, fences);
        holds.runsOnThread(listed.id());
        try (AutoCloseable scope = holding.inScope()) {
            return call.call();
        } finally {
            holds.leftThread();
            LockContext.exit();
        }
    }

    /**
     * Releases the hold, the first time only; later calls get the same stage. The stage fails only
     * when the call itself succeeded ({@code failure} is {@code null}) and the lease turned out lost,
     * with {@link LockLeaseExpiredException} (unless distlock.throw-on-lease-lost=false and the work
     * was not {@linkplain #cutShort cut short}), or
     * when the release failed otherwise; with a {@code failure}, problems of the release are added
     * to it as suppressed exceptions and the stage completes normally. A release Redis did not confirm
     * is logged: the core retries it, and the lease frees the lock at the latest.
     */
    public CompletableFuture<Void> release(Throwable failure) {
        if (!released.compareAndSet(false, true)) {
            return release;
        }
        holds.remove(listed.id());
        CompletionStage<Void> unlocked;
        try {
            unlocked = handle.unlockAsync(request.holdAtLeast());
        } catch (RuntimeException e) {
            unlocked = CompletableFuture.failedFuture(e);
        }
        unlocked.whenComplete((ok, error) -> {
            Throwable cause =
                    error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            Throwable outcome = null;
            LockLeaseExpiredException lost = cause instanceof LockLeaseExpiredException e ? e : null;
            try {
                if (cause instanceof LockUnavailableException) {
                    log.warn(
                            "Could not confirm the release of lock '{}' after {}: {}",
                            handle.key(),
                            request.caller(),
                            cause.getMessage());
                    if (failure != null) {
                        failure.addSuppressed(cause);
                    }
                } else if (cause != null) {
                    if (failure != null) {
                        failure.addSuppressed(cause);
                    } else if (lost == null || throwOnLeaseLost || cutShort != null) {
                        outcome = cause;
                    }
                }
                if (outcome == null && failure == null && cutShort != null) {
                    outcome = new LockLeaseExpiredException(handle.key(), cutShort);
                }
            } finally {
                try {
                    holding.released(lost);
                } catch (RuntimeException | Error e) {
                    // an observation handler of the application failed: the caller must still get its outcome
                    log.warn("Observation of lock '{}' failed as it was released: {}", handle.key(), e.toString());
                }
            }
            if (outcome == null) {
                release.complete(null);
            } else {
                release.completeExceptionally(outcome);
            }
        });
        return release;
    }
}
