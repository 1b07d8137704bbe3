package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;

/**
 * A reentrant lock shared by every process that uses the same Redis and lock name. Ownership is
 * bound to the thread that acquired it, as with {@link java.util.concurrent.locks.ReentrantLock};
 * the async methods ({@link #lockAsync()}, {@link #tryLockAsync(Duration)}) hand out a
 * {@link LockHandle} instead, which owns its hold whatever thread uses it.
 *
 * <p>Without an explicit lease the lock is held with the client's watchdog lease (30 s by default),
 * renewed every third of it while the holder runs; a crashed process stops renewing, so its lock
 * frees itself within one lease. With an explicit lease there is no renewal: the lock expires when
 * the lease runs out, and a later {@link #unlock()} reports that with a
 * {@link LockLeaseExpiredException}.
 *
 * <p>A hold with a fixed lease is not looked at in Redis while it is held (the watchdog only visits
 * watchdog leases, one call per hold). If its key disappears early, because Redis evicted it under
 * memory pressure or an operator force-unlocked it, the holder learns it only at {@link #unlock()},
 * up to its whole lease later, while another owner may have held the lock. A watchdog hold learns it
 * at its next renewal, within a third of the watchdog lease. Run the Redis that holds the locks with
 * {@code maxmemory-policy noeviction}: every lock key has a TTL, so the {@code volatile-*} policies
 * evict locks too; the client reads the policy at start-up and after each reconnect and logs a WARN
 * when it can evict (once, until the policy it finds changes).
 *
 * <p>A wait rides out what is shorter than the caller's patience: a call to Redis that goes
 * unanswered inside {@code tryLock(wait)} (a stalled or dropped connection, a paused or restarting
 * server, a failover or a Cluster slot migration) is sent again, under the same grant id, until the
 * wait's deadline; every script is idempotent, so a call that Redis ran although its reply was lost
 * is the same grant when sent again. The caller gets the lock if it becomes free in time,
 * {@code false} (an empty handle, async) if it does not, and a {@link LockUnavailableException} only
 * when Redis left the last call of the wait unanswered up to the deadline. A {@code tryLock(wait)}
 * returns at most {@code wait} plus 200 ms (the least time one call to Redis is given) after it was
 * called, well within {@code wait} plus one
 * {@link LockClientOptions#operationTimeout() operation timeout}. {@link #lock()}, which has no wait
 * of its own, still fails after one operation timeout of silence; it rides out only refusals for now
 * (TRYAGAIN, LOADING, a failover).
 *
 * <pre>{@code
 * RedisLock lock = client.getLock("order:42");
 * if (lock.tryLock(Duration.ofSeconds(2))) {
 *     try {
 *         long token = lock.currentFencingToken(); // pass to the store to reject stale writers
 *         ...
 *     } finally {
 *         lock.unlock();
 *     }
 * }
 * }</pre>
 */
public interface RedisLock extends Lock {

    /**
     * The shortest fixed lease a lock accepts: 10 ms. A lease shorter than a round trip to Redis ends
     * before its grant reaches the client.
     */
    Duration MIN_LEASE = Duration.ofMillis(10);

    /**
     * The longest lease or hold-at-least a lock accepts, and the longest finite wait: 365 days. A longer
     * lease is almost surely a mistake (a lock held for ever by a crashed process) and overflows the
     * millisecond arithmetic of Redis and the JVM. A longer wait (such as
     * {@code Duration.ofSeconds(Long.MAX_VALUE)}) waits for ever, as {@code java.util.concurrent} locks do.
     */
    Duration MAX_DURATION = Duration.ofDays(365);

    /** The lock's key, as given to {@link LockClient#getLock(String)}. */
    String getKey();

    /**
     * Blocks until the lock is acquired, holding it for {@code lease} with no renewal (nor any check
     * in Redis while held: a key evicted or force-unlocked early shows only at {@link #unlock()}).
     *
     * @throws NullPointerException when {@code lease} is null ({@link #lock()} is the watchdog's)
     * @throws IllegalArgumentException when {@code lease} is under 10 ms or over 365 days
     */
    void lock(Duration lease);

    /** Acquires the lock if it is free right now, with the watchdog lease. */
    @Override
    boolean tryLock();

    /**
     * Waits up to {@code waitTime} for the lock, holding it with the watchdog lease; a wait over 365 days
     * waits for ever.
     *
     * @throws IllegalArgumentException when {@code waitTime} is negative
     * @throws LockUnavailableException when Redis left the wait's last call unanswered up to the end of the wait
     *         (returning at most 200 ms after it); shorter outages are ridden out
     */
    boolean tryLock(Duration waitTime) throws InterruptedException;

    /**
     * Waits up to {@code waitTime} for the lock and holds it for {@code lease} with no renewal;
     * a {@code null} lease means the watchdog lease. A wait over 365 days waits for ever.
     *
     * @throws IllegalArgumentException when the wait is negative, or the lease under 10 ms or over 365 days
     * @throws LockUnavailableException when Redis left the wait's last call unanswered up to the end of the wait
     *         (returning at most 200 ms after it); shorter outages are ridden out
     */
    boolean tryLock(Duration waitTime, @Nullable Duration lease) throws InterruptedException;

    /**
     * {@inheritDoc} A non-positive time means a single attempt, as the {@link Lock} contract says; a
     * time over 365 days (such as {@code Long.MAX_VALUE}) waits for ever, as {@code java.util.concurrent}
     * locks do, and as the {@link Duration} variants do.
     */
    @Override
    boolean tryLock(long time, TimeUnit unit) throws InterruptedException;

    /**
     * Releases one hold of the current thread; the last one frees the lock and wakes a waiter.
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     * @throws LockLeaseExpiredException when the hold's lease ran out (or renewal failed) before
     *         this call, so another owner may have held the lock meanwhile
     */
    @Override
    void unlock();

    /**
     * Releases one hold of the current thread, as {@link #unlock()} does, except that a last release
     * within {@code holdAtLeast} of the grant leaves the lock taken until {@code holdAtLeast} after the
     * grant: taken by nobody, so no owner (this thread included) gets or re-enters it before then. A
     * fixed lease (one given to {@code lock} or {@code tryLock}) that ends sooner still ends it; a
     * watchdog lease, which only lasted as long as the hold, does not: the lock stays taken the whole
     * {@code holdAtLeast}, however much longer than the watchdog lease that is. For jobs that must not run twice when instances start
     * them at slightly different times: the first run keeps the others out for that long even when it
     * finishes at once. The lock expires by itself; waiters take it then.
     *
     * @param holdAtLeast how long after the grant the lock stays taken; {@link Duration#ZERO} is {@link #unlock()}
     * @throws IllegalArgumentException when {@code holdAtLeast} is negative or over 365 days
     * @throws UnsupportedOperationException for lock kinds other than the reentrant lock (and
     *         multi-locks of it); the hold is then kept, so release it with {@link #unlock()}
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     * @throws LockLeaseExpiredException as {@link #unlock()}
     */
    void unlock(Duration holdAtLeast);

    /** Whether the current thread holds the lock and its lease has not been lost or run out. */
    boolean isHeldByCurrentThread();

    /** How many times the current thread holds the lock (0 when it does not). */
    int getHoldCount();

    /**
     * Whether the lock is taken in Redis now (asks Redis): held by an owner, kept after an
     * {@link #unlock(Duration) unlock with holdAtLeast}, or reserved for at most 50 ms, after a
     * release, for another instance that was waiting for it.
     */
    boolean isLocked();

    /** The lease left on the lock, whoever holds it (asks Redis); {@link Duration#ZERO} when free. */
    Duration remainingLease();

    /**
     * The fencing token of the current thread's hold: a number that grows with every grant of this
     * lock, unchanged by re-entry. Pass it to the protected resource so it can refuse writes that
     * carry a smaller token than one it has already seen.
     *
     * @throws IllegalMonitorStateException when the current thread does not hold the lock
     */
    long currentFencingToken();

    /**
     * Deletes the lock whoever holds it, for operators. A holder of another process learns of it
     * at its next renewal (lease lost) or unlock.
     *
     * @return whether a lock was deleted
     */
    boolean forceUnlock();

    /**
     * Waits for the lock, for as long as it takes, without blocking a thread; the stage completes with
     * a {@link LockHandle} that owns the hold (not the calling thread) and releases it from any thread.
     * Cancelling the stage while it waits gives everything up in Redis.
     */
    CompletionStage<LockHandle> lockAsync();

    /**
     * Waits up to {@code waitTime} for the lock without blocking a thread; the stage completes with the
     * handle, or empty when the wait ran out. Cancelling it while it waits gives everything up in Redis. A
     * wait over 365 days waits for ever.
     *
     * @throws IllegalArgumentException when {@code waitTime} is negative (before Redis is touched)
     */
    CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime);

    /**
     * As {@link #tryLockAsync(Duration)}, holding the lock for {@code lease} with no renewal; a
     * {@code null} lease means the watchdog lease. A wait over 365 days waits for ever.
     *
     * @throws IllegalArgumentException when the wait is negative, or the lease under 10 ms or over 365 days
     */
    CompletionStage<Optional<LockHandle>> tryLockAsync(Duration waitTime, @Nullable Duration lease);

    /** Not supported: a Redis lock has no conditions. */
    @Override
    default Condition newCondition() {
        throw new UnsupportedOperationException(
                "RedisLock '" + getKey()
                        + "' does not support conditions: use a separate signalling mechanism (for example a Redis list or pub/sub)");
    }
}
