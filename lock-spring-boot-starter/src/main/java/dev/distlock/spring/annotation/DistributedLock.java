package dev.distlock.spring.annotation;

import dev.distlock.core.LockType;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs the annotated method while holding a distributed lock, so that no two instances of the
 * service run it for the same key at once. The lock wraps {@code @Transactional}: the transaction
 * commits before the lock is released.
 *
 * <pre>{@code
 * @DistributedLock(key = "'order:' + #orderId", waitTime = "2s")
 * public Receipt pay(long orderId) { ... }
 *
 * @DistributedLock(waitTime = "0", onFailure = OnLockFailure.SKIP)   // one instance runs it, the others skip
 * @Scheduled(cron = "0 0 2 * * *")
 * public void nightlyReport() { ... }
 * }</pre>
 *
 * A method returning {@code CompletionStage}, {@code CompletableFuture}, Reactor {@code Mono} or
 * {@code Flux}, a Kotlin {@code suspend} function and one returning a Kotlin {@code Flow} hold the
 * lock until the work they return completes, not just until they return (the call's lock handle owns
 * the hold then, not a thread). Deferred results the lock cannot follow to their end are rejected at
 * start-up, as their work would run after the lock was released: a {@code Future} that is not a
 * {@code CompletionStage}, other reactive types, Spring MVC's {@code Callable}, {@code WebAsyncTask},
 * {@code DeferredResult}, {@code StreamingResponseBody} and {@code ResponseBodyEmitter}, and a
 * (lazy) {@code Stream}.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective // AOT registers annotated methods for reflection: a native image keeps their annotations and parameter
// names
public @interface DistributedLock {

    /**
     * The lock key. A key containing {@code #}, {@code @}, {@code '} or {@code (} is a SpEL expression
     * evaluated once per call over the method's arguments ({@code #orderId}, {@code #p0},
     * {@code #a0}), {@code #root.methodName}, {@code #root.targetClass} and beans ({@code @tenant.id()});
     * any other key is used as written. Empty: the lock is named after {@link #name()}, so the method
     * itself is the critical section. A key that evaluates to null or blank fails the call, as does
     * one built from a null argument or property ({@code 'order:' + #req.orderId} would give
     * "order:null"), or from a value without a {@code toString()} of its own, or a key that is an
     * array: its text would be its identity ({@code Order@6d06d69c}), a lock per call; use a field
     * such as {@code #order.id}. A parameter declared as such a class fails start-up.
     */
    String key() default "";

    /**
     * Several keys, each in the same form as {@link #key()}, locked together as one multi-lock: all
     * or nothing, in sorted order, so methods naming the same keys in different orders cannot
     * deadlock. Use either {@code key} or {@code keys}.
     *
     * <pre>{@code
     * @DistributedLock(keys = {"'account:' + #from", "'account:' + #to"})
     * public void transfer(long from, long to, BigDecimal amount) { ... }
     * }</pre>
     */
    String[] keys() default {};

    /**
     * A fixed name for metrics and logs; defaults to {@code SimpleClassName.method}. Metrics never use
     * the resolved key, which may be unbounded (one per order).
     */
    String name() default "";

    /**
     * How long to wait for a busy lock: {@code 500ms}, {@code 2s}, {@code 1m}, ISO-8601 ({@code PT2S})
     * or a {@code ${property}}; {@code 0} tries once. Empty: {@code distlock.wait-time}.
     */
    String waitTime() default "";

    /**
     * A fixed lease after which the lock expires even if the method still runs, in the same formats
     * as {@link #waitTime()}. Empty: {@code distlock.lease-time}, and when that is unset too
     * the watchdog lease, renewed while the method runs (recommended).
     */
    String leaseTime() default "";

    /**
     * Keep the lock this long after it was taken, even when the method returns sooner, in the same
     * formats as {@link #waitTime()}: when the method returns, the lock stays taken (by nobody, not even
     * this instance) until then, and expires by itself. For scheduled jobs that must run once per
     * trigger although instances fire a little apart (ShedLock's {@code lockAtLeastFor}; its
     * {@code lockAtMostFor} is {@link #maxHold()}, or a fixed {@link #leaseTime()}). At most a fixed {@code leaseTime}. Only with the
     * default {@code type} (single key or {@code keys}) and without {@code redlock}. Empty or
     * {@code 0}: released when the method returns.
     */
    String holdAtLeast() default "";

    /**
     * The longest the watchdog renews this method's lock, in the same formats as {@link #waitTime()}: a call
     * still running then is told it lost the lock (as {@code distlock.max-hold} does for every lock, which
     * this overrides), so a stuck call cannot hold it for ever (ShedLock's {@code lockAtMostFor} for a
     * watchdog lease). A fixed {@code leaseTime} is its own cap, so not with it. Empty: {@code distlock.max-hold}.
     */
    String maxHold() default "";

    /**
     * The kind of lock: {@link LockType#REENTRANT} (default), {@link LockType#FAIR}, or the
     * {@link LockType#READ} / {@link LockType#WRITE} side of a read/write lock on the key. A READ
     * method that calls a WRITE method on the same key fails at once (no upgrade, no self-deadlock).
     * {@link LockType#REDLOCK} is the same as {@link #redlock()} {@code = true}. The type is lock-core's
     * {@link LockType}, the one {@code LockInfo}, listeners and metrics report.
     */
    LockType type() default LockType.REENTRANT;

    /**
     * Take the lock as a RedLock on the independent Redis masters listed in
     * {@code distlock.redlock.nodes} (a majority must grant it) instead of on the
     * application's Redis. Only with the default {@code type} and a single {@code key}.
     */
    boolean redlock() default false;

    /**
     * Run under one permit of a semaphore of this many permits on the key instead of a lock: at most
     * {@code permits} calls run at once across all instances (for example a partner API that allows three
     * concurrent calls). With {@code type} {@link LockType#FAIR} the semaphore serves waiters in the order
     * they asked. Each permit is leased and renewed like a lock, and carries its own fencing token. Every
     * instance must declare the same number for a key. Only with a single {@code key}, without
     * {@code redlock} and {@code holdAtLeast}. 0 (default): a lock.
     */
    int permits() default 0;

    /** What happens when the lock stays busy for the whole wait time. */
    OnLockFailure onFailure() default OnLockFailure.THROW;

    /**
     * What a transaction begun inside the method (its {@code @Transactional}, which the lock wraps) does
     * when the lock turns out lost just before it commits: the check asks this instance's lease clock,
     * then Redis. {@link OnLostBeforeCommit#DEFAULT}: {@code distlock.transaction.on-lost-before-commit}
     * (roll back unless set).
     *
     * <pre>{@code
     * @DistributedLock(key = "'report:' + #day", onLostBeforeCommit = OnLostBeforeCommit.COMMIT_AND_REPORT)
     * @Transactional
     * public void summarize(LocalDate day) { ... }   // idempotent: a late commit is reported, not refused
     * }</pre>
     */
    OnLostBeforeCommit onLostBeforeCommit() default OnLostBeforeCommit.DEFAULT;
}
