package dev.distlock.spring;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockType;
import dev.distlock.spring.execution.LockExecutor;
import dev.distlock.spring.execution.LockRequest;
import dev.distlock.spring.execution.LockedCall;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Runs code inside a distributed lock where an annotation cannot be used: the key is only known
 * inside the method, the lock covers part of a method, or the caller is not a Spring bean. It runs
 * on the same code path as {@code @DistributedLock}: the same {@code distlock.*} defaults,
 * metrics, traces, fencing tokens ({@link LockContext}), lease-loss handling and exceptions.
 *
 * <pre>{@code
 * Receipt receipt = lockTemplate.withName("payments")
 *         .execute("order:" + orderId, Duration.ofSeconds(2), () -> pay(orderId));
 *
 * Optional<Report> report = lockTemplate.withName("nightly-report")
 *         .tryExecute("nightly-report", Duration.ZERO, this::buildReport);   // empty when another instance runs it
 * }</pre>
 *
 * Immutable and thread-safe: {@code with...} methods return configured copies. Give a fixed
 * {@link #withName(String) name} for metrics (default {@value #DEFAULT_NAME}); the key is never a tag.
 */
public final class LockTemplate {

    /** The metrics name of a template that was not given one. */
    public static final String DEFAULT_NAME = "LockTemplate";

    private final LockExecutor executor;
    private final TemplateSettings settings;

    /**
     * Created by the starter's auto-configuration; inject the {@code LockTemplate} bean rather than
     * building one.
     *
     * @param defaultLease the lease of calls that set none ({@code distlock.lease-time}); {@code null} for the watchdog
     * @param redlockConfigured whether distlock.redlock.nodes is set
     */
    public LockTemplate(LockExecutor executor, Duration defaultLease, boolean redlockConfigured) {
        this(executor, TemplateSettings.defaults(DEFAULT_NAME, defaultLease, redlockConfigured));
    }

    private LockTemplate(LockExecutor executor, TemplateSettings settings) {
        this.executor = executor;
        this.settings = settings;
    }

    /** A copy whose locks are reported under {@code name} in metrics, traces and the Actuator endpoint. */
    public LockTemplate withName(String name) {
        return new LockTemplate(executor, settings.withName(name));
    }

    /**
     * A copy that takes locks of {@code type} (default {@link LockType#REENTRANT});
     * {@link LockType#REDLOCK} is the same as {@link #withRedLock()}.
     */
    public LockTemplate withType(LockType type) {
        return new LockTemplate(executor, settings.withType(type));
    }

    /**
     * A copy that holds its locks for a fixed {@code lease}, without renewal; {@code null} for the
     * watchdog lease, renewed while the work runs (recommended).
     */
    public LockTemplate withLeaseTime(Duration lease) {
        return new LockTemplate(executor, settings.withLeaseTime(lease));
    }

    /**
     * A copy whose locks stay taken until {@code holdAtLeast} after their grant when the work ends
     * sooner: taken by nobody, expiring by themselves (the annotation's {@code holdAtLeast}, ShedLock's
     * {@code lockAtLeastFor}). Type REENTRANT only, without RedLock, at most a fixed lease;
     * {@link Duration#ZERO} releases when the work ends.
     */
    public LockTemplate withHoldAtLeast(Duration holdAtLeast) {
        return new LockTemplate(executor, settings.withHoldAtLeast(holdAtLeast));
    }

    /**
     * A copy whose locks the watchdog renews {@code maxHold} at most (the annotation's {@code maxHold}, ShedLock's
     * {@code lockAtMostFor}): work still running then is told it lost the lock. Overrides distlock.max-hold;
     * {@code null} goes back to it. Not with a fixed lease, which is its own cap.
     */
    public LockTemplate withMaxHold(@Nullable Duration maxHold) {
        return new LockTemplate(executor, settings.withMaxHold(maxHold));
    }

    /**
     * A copy whose calls each hold one permit of a semaphore of {@code permits} on the key (the annotation's
     * {@code permits}); fair after {@code withType(FAIR)}; not with RedLock, holdAtLeast or several keys.
     */
    public LockTemplate withPermits(int permits) {
        return new LockTemplate(executor, settings.withPermits(permits));
    }

    /** A copy that takes its locks as RedLocks on distlock.redlock.nodes. */
    public LockTemplate withRedLock() {
        return new LockTemplate(executor, settings.withRedLock());
    }

    /**
     * Runs {@code action} while holding the lock on {@code key}, waiting up to {@code waitTime} for it.
     *
     * @return what {@code action} returned
     * @throws LockAcquisitionException when the lock stayed busy for the whole wait (or the wait was interrupted)
     * @throws dev.distlock.core.LockUnavailableException when Redis did not answer in time
     * @throws dev.distlock.core.LockLeaseExpiredException when the lock was lost while {@code action} ran
     *         (unless distlock.throw-on-lease-lost=false)
     */
    public <T> T execute(String key, Duration waitTime, Supplier<T> action) {
        Objects.requireNonNull(action, "action");
        return run(settings.request(List.of(key(key)), false, waitTime), () -> plain(action.get()), null);
    }

    /** {@link #execute(String, Duration, Supplier)} for work without a result. */
    public void execute(String key, Duration waitTime, Runnable action) {
        Objects.requireNonNull(action, "action");
        run(
                settings.request(List.of(key(key)), false, waitTime),
                () -> {
                    action.run();
                    return null;
                },
                null);
    }

    /**
     * Like {@link #execute(String, Duration, Supplier)}, but a lock that stays busy for the whole
     * wait gives {@link Optional#empty()} instead of an exception (the annotation's
     * {@code onFailure = SKIP}). Redis errors are still thrown.
     */
    public <T> Optional<T> tryExecute(String key, Duration waitTime, Supplier<T> action) {
        Objects.requireNonNull(action, "action");
        return run(
                settings.request(List.of(key(key)), false, waitTime),
                () -> Optional.ofNullable(plain(action.get())),
                Optional::empty);
    }

    /**
     * Runs {@code action} while holding every one of {@code keys}, all or nothing, taken in sorted
     * order (no deadlock with callers naming them in another order); type REENTRANT only.
     */
    public <T> T executeAll(Collection<String> keys, Duration waitTime, Supplier<T> action) {
        Objects.requireNonNull(action, "action");
        if (keys == null || keys.isEmpty()) {
            throw new IllegalArgumentException(caller() + " needs at least one key");
        }
        if (settings.type() != LockType.REENTRANT || settings.redlock()) {
            throw new IllegalArgumentException(
                    caller() + " locks several keys, which works with type REENTRANT only (not "
                            + (settings.redlock() ? "RedLock" : settings.type()) + ")");
        }
        return run(
                settings.request(keys.stream().map(this::key).toList(), true, waitTime),
                () -> plain(action.get()),
                null);
    }

    /** {@link #executeAll(Collection, Duration, Supplier)} for work without a result. */
    public void executeAll(Collection<String> keys, Duration waitTime, Runnable action) {
        Objects.requireNonNull(action, "action");
        executeAll(keys, waitTime, () -> {
            action.run();
            return null;
        });
    }

    private String key(String key) {
        return settings.requireKey(key);
    }

    private <T> T plain(T returned) {
        return settings.plain(returned);
    }

    private <T> T run(LockRequest request, LockedCall<T> work, Supplier<T> whenBusy) {
        try {
            return executor.execute(request, work, whenBusy);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            // Suppliers and Runnables throw no checked exception; a sneaky one is still the caller's, so keep it as the
            // cause.
            throw new IllegalStateException(caller() + " work threw a checked exception: " + t, t);
        }
    }

    private String caller() {
        return settings.caller();
    }
}
