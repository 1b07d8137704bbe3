package dev.distlock.spring;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockType;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.aop.DeferredResults;
import dev.distlock.spring.execution.LockExecutor;
import dev.distlock.spring.execution.LockRequest;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

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
    private final String name;
    private final LockType type;
    private final Duration leaseTime;
    private final boolean redlock;
    private final boolean redlockConfigured;
    private final Duration holdAtLeast;
    private final int permits;

    /**
     * Created by the starter's auto-configuration; inject the {@code LockTemplate} bean rather than
     * building one.
     *
     * @param defaultLease the lease of calls that set none ({@code distlock.lease-time}); {@code null} for the watchdog
     * @param redlockConfigured whether distlock.redlock.nodes is set
     */
    public LockTemplate(LockExecutor executor, Duration defaultLease, boolean redlockConfigured) {
        this(executor, DEFAULT_NAME, LockType.REENTRANT, defaultLease, false, redlockConfigured, Duration.ZERO, 0);
    }

    private LockTemplate(
            LockExecutor executor,
            String name,
            LockType type,
            Duration leaseTime,
            boolean redlock,
            boolean redlockConfigured,
            Duration holdAtLeast,
            int permits) {
        this.executor = executor;
        this.name = name;
        this.type = type;
        this.leaseTime = leaseTime;
        this.redlock = redlock;
        this.redlockConfigured = redlockConfigured;
        this.holdAtLeast = holdAtLeast;
        this.permits = permits;
    }

    /** A copy whose locks are reported under {@code name} in metrics, traces and the Actuator endpoint. */
    public LockTemplate withName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("LockTemplate.withName needs a non-blank name, such as \"payments\"");
        }
        return new LockTemplate(
                executor, name.trim(), type, leaseTime, redlock, redlockConfigured, holdAtLeast, permits);
    }

    /**
     * A copy that takes locks of {@code type} (default {@link LockType#REENTRANT});
     * {@link LockType#REDLOCK} is the same as {@link #withRedLock()}.
     */
    public LockTemplate withType(LockType type) {
        Objects.requireNonNull(type, "LockTemplate.withType needs a LockType");
        if (type == LockType.REDLOCK) {
            return withType(LockType.REENTRANT).withRedLock();
        }
        if (permits > 0 || type == LockType.SEMAPHORE || type == LockType.FAIR_SEMAPHORE) {
            throw new IllegalArgumentException(
                    caller() + ": set the type before withPermits, which makes the semaphore");
        }
        if (redlock && type != LockType.REENTRANT) {
            throw new IllegalArgumentException(
                    caller() + " uses RedLock, which supports type REENTRANT only, not " + type);
        }
        if (!holdAtLeast.isZero() && type != LockType.REENTRANT) {
            throw new IllegalArgumentException(caller() + " keeps its locks for holdAtLeast " + holdAtLeast
                    + ", which works with type REENTRANT only, not " + type);
        }
        return new LockTemplate(executor, name, type, leaseTime, redlock, redlockConfigured, holdAtLeast, permits);
    }

    /**
     * A copy that holds its locks for a fixed {@code lease}, without renewal; {@code null} for the
     * watchdog lease, renewed while the work runs (recommended).
     */
    public LockTemplate withLeaseTime(Duration lease) {
        if (lease != null
                && (lease.compareTo(RedisLock.MIN_LEASE) < 0 || lease.compareTo(RedisLock.MAX_DURATION) > 0)) {
            throw new IllegalArgumentException(caller() + " got lease " + lease + ": give a lease from "
                    + RedisLock.MIN_LEASE.toMillis() + " ms (well above the round trip to Redis) to "
                    + RedisLock.MAX_DURATION.toDays() + " days, or null for the watchdog lease");
        }
        if (lease != null && holdAtLeast.compareTo(lease) > 0) {
            throw new IllegalArgumentException(caller() + " got lease " + lease + " shorter than its holdAtLeast "
                    + holdAtLeast + ": make the lease at least holdAtLeast");
        }
        return new LockTemplate(executor, name, type, lease, redlock, redlockConfigured, holdAtLeast, permits);
    }

    /**
     * A copy whose locks stay taken until {@code holdAtLeast} after their grant when the work ends
     * sooner: taken by nobody, expiring by themselves (the annotation's {@code holdAtLeast}, ShedLock's
     * {@code lockAtLeastFor}). Type REENTRANT only, without RedLock, at most a fixed lease;
     * {@link Duration#ZERO} releases when the work ends.
     */
    public LockTemplate withHoldAtLeast(Duration holdAtLeast) {
        if (holdAtLeast == null || holdAtLeast.isNegative() || holdAtLeast.compareTo(RedisLock.MAX_DURATION) > 0) {
            throw new IllegalArgumentException(caller() + " got holdAtLeast " + holdAtLeast
                    + ": give a positive duration of at most " + RedisLock.MAX_DURATION.toDays()
                    + " days, or Duration.ZERO to release when the work ends");
        }
        if (!holdAtLeast.isZero() && (type != LockType.REENTRANT || redlock)) {
            throw new IllegalArgumentException(
                    caller() + " has " + (redlock ? "RedLock" : "type " + type)
                            + ", which cannot stay taken after the work ends; holdAtLeast needs type REENTRANT without RedLock");
        }
        if (leaseTime != null && holdAtLeast.compareTo(leaseTime) > 0) {
            throw new IllegalArgumentException(caller() + " got holdAtLeast " + holdAtLeast + " longer than its lease "
                    + leaseTime + ": make it at most the lease (ShedLock: lockAtLeastFor <= lockAtMostFor)");
        }
        return new LockTemplate(executor, name, type, leaseTime, redlock, redlockConfigured, holdAtLeast, permits);
    }

    /**
     * A copy whose calls each hold one permit of a semaphore of {@code permits} on the key (the annotation's
     * {@code permits}); fair after {@code withType(FAIR)}; not with RedLock, holdAtLeast or several keys.
     */
    public LockTemplate withPermits(int permits) {
        if (permits < 1 || redlock || !holdAtLeast.isZero() || (type != LockType.REENTRANT && type != LockType.FAIR)) {
            throw new IllegalArgumentException(caller() + " got permits " + permits + " (type " + type + "): give"
                    + " at least 1 permit, on type REENTRANT or FAIR, without RedLock and holdAtLeast");
        }
        LockType semaphore = type == LockType.FAIR ? LockType.FAIR_SEMAPHORE : LockType.SEMAPHORE;
        return new LockTemplate(executor, name, semaphore, leaseTime, false, redlockConfigured, Duration.ZERO, permits);
    }

    /** A copy that takes its locks as RedLocks on distlock.redlock.nodes. */
    public LockTemplate withRedLock() {
        if (!redlockConfigured) {
            throw new IllegalStateException(caller() + " cannot use RedLock: distlock.redlock.nodes is not set;"
                    + " list at least 3 independent Redis masters there");
        }
        if (type != LockType.REENTRANT) {
            throw new IllegalArgumentException(
                    caller() + " has type " + type + ", which RedLock does not support; use REENTRANT");
        }
        if (!holdAtLeast.isZero()) {
            throw new IllegalArgumentException(caller() + " keeps its locks for holdAtLeast " + holdAtLeast
                    + ", which RedLock does not support; use withHoldAtLeast(Duration.ZERO) or no RedLock");
        }
        return new LockTemplate(executor, name, type, leaseTime, true, redlockConfigured, holdAtLeast, permits);
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
        return run(request(List.of(requireKey(key)), false, waitTime), () -> plain(action.get()), null);
    }

    /** {@link #execute(String, Duration, Supplier)} for work without a result. */
    public void execute(String key, Duration waitTime, Runnable action) {
        Objects.requireNonNull(action, "action");
        run(
                request(List.of(requireKey(key)), false, waitTime),
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
                request(List.of(requireKey(key)), false, waitTime),
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
        if (type != LockType.REENTRANT || redlock) {
            throw new IllegalArgumentException(
                    caller() + " locks several keys, which works with type REENTRANT only (not "
                            + (redlock ? "RedLock" : type) + ")");
        }
        return run(
                request(keys.stream().map(this::requireKey).toList(), true, waitTime), () -> plain(action.get()), null);
    }

    /** {@link #executeAll(Collection, Duration, Supplier)} for work without a result. */
    public void executeAll(Collection<String> keys, Duration waitTime, Runnable action) {
        Objects.requireNonNull(action, "action");
        executeAll(keys, waitTime, () -> {
            action.run();
            return null;
        });
    }

    private LockRequest request(List<String> keys, boolean multi, Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException(
                    caller() + " got wait time " + waitTime + ": give Duration.ZERO to try once, or a positive wait");
        }
        return new LockRequest(caller(), name, type, redlock, keys, multi, waitTime, leaseTime, holdAtLeast, permits);
    }

    private String requireKey(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException(
                    caller() + " needs a key naming what it protects, such as \"order:\" + orderId; got "
                            + (key == null ? "null" : "a blank string"));
        }
        return key;
    }

    private String caller() {
        return "LockTemplate '" + name + "'";
    }

    /**
     * What the work returned, unless it is work that goes on after the lock is released (a future, a
     * Publisher, ...): the lock would not cover it, so the call fails instead (the lock is released as for
     * any failure).
     */
    private <T> T plain(T returned) {
        String why = DeferredResults.of(returned);
        if (why == null) {
            return returned;
        }
        throw new IllegalStateException(
                caller() + " work returned a " + returned.getClass().getName() + ": " + why
                        + ", while the lock is released when the work returns, so that work would run unlocked (work it"
                        + " started already may still be running). Wait for the result inside the work (join(), block()), or"
                        + " use @DistributedLock on a method returning CompletableFuture, Mono or Flux, whose lock follows"
                        + " the result to its end");
    }

    private <T> T run(LockRequest request, dev.distlock.spring.execution.LockedCall<T> work, Supplier<T> whenBusy) {
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
}
