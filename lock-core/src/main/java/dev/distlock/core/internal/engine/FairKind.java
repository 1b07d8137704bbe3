package dev.distlock.core.internal.engine;

import dev.distlock.core.LockType;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.WakeupHub;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.internal.redis.script.ScriptCalls;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The fair lock: the reentrant lock's hash (so renewal is the same script) plus a FIFO queue of
 * waiting owners and a sorted set of their deadlines, all under the lock's hash tag. The lock goes
 * to waiters in the order they first asked, across threads and processes. A last release grants the
 * lock to the next live waiter itself: a waiter of the releasing client is handed the grant in the
 * process (one round trip per hand-off, no wake-up message); any other is told on its own channel, by a
 * message that carries the grant, and holds the lock on receipt ({@link GrantOffers#fromMessage}); should
 * it miss the message, its next attempt takes the grant up.
 *
 * <p>A waiter keeps its place by coming back at least every {@code recheck} (each attempt pushes its
 * deadline to {@code min(wait left, recheck) + margin} from now). One that stops coming back
 * (crashed, killed, paused longer than the margin) is dropped when it reaches the head, so it
 * delays the queue by at most about {@code 2 * recheck + margin}; a paused waiter that comes back
 * later queues again at the end.
 */
public final class FairKind extends LockKind {

    public static final FairKind INSTANCE = new FairKind(Duration.ofSeconds(1), Duration.ofSeconds(3));

    private final String recheckMs;
    private final String marginMs;

    /**
     * @param recheck the longest a waiter sleeps between attempts, whatever the holder's lease
     * @param margin how late past its next attempt a waiter may be before it counts as gone
     */
    public FairKind(Duration recheck, Duration margin) {
        super(LockType.FAIR);
        this.recheckMs = ScriptArgs.decimal(recheck.toMillis());
        this.marginMs = ScriptArgs.decimal(margin.toMillis());
    }

    @Override
    public CompletableFuture<List<Object>> acquire(ScriptCalls scripts, LockKeys keys, ScriptArgs.Acquire a) {
        return scripts.array(
                LockScript.FAIR_ACQUIRE,
                new String[] {keys.lock(), keys.queue(), keys.timeouts(), keys.fence(), keys.waiting()},
                a.owner(),
                ScriptArgs.decimal(a.leaseMs()),
                ScriptArgs.decimal(a.fenceTtlMs()),
                ScriptArgs.decimal(a.held()),
                a.grantId(),
                ScriptArgs.decimal(a.waitMs()),
                recheckMs,
                marginMs,
                keys.waiterChannelPrefix(),
                wakeMessage(a.owner()));
    }

    @Override
    public CompletableFuture<Long> release(ScriptCalls scripts, LockKeys keys, ScriptArgs.Release r) {
        // Fair waiters listen on their own channels, so a message published to one is its only wake-up (even in
        // this client); a grant made to a waiter of this client comes back in the reply instead.
        return scripts.array(
                        LockScript.FAIR_RELEASE,
                        new String[] {
                            keys.lock(),
                            keys.queue(),
                            keys.timeouts(),
                            keys.note(r.owner()),
                            keys.waiting(),
                            keys.fence()
                        },
                        r.owner(),
                        r.grantId(),
                        ScriptArgs.decimal(r.held()),
                        keys.waiterChannelPrefix(),
                        WakeupHub.directed(r.wakeMessage()),
                        ScriptArgs.decimal(r.noteTtlMs()),
                        ScriptArgs.decimal(r.fenceTtlMs()),
                        r.localOwners(),
                        ScriptArgs.decimal(r.cohortMax()),
                        r.served(),
                        ScriptArgs.decimal(r.callId()))
                .thenApply(reply -> {
                    // {1, waiter, token, grant id, lease ms, (owner, grant id) of the waiters behind it...}, or
                    // {2, ...} for a grant an earlier sending of this call made (its reply was lost)
                    long result = (Long) reply.get(0);
                    if (reply.size() >= 5) {
                        r.handOver()
                                .granted(
                                        (String) reply.get(1),
                                        (Long) reply.get(2),
                                        (String) reply.get(3),
                                        (Long) reply.get(4),
                                        FairCohort.of(reply, 5),
                                        result == 2);
                    }
                    return result == 2 ? 1L : result;
                });
    }

    @Override
    public CompletableFuture<Long> renew(
            ScriptCalls scripts, LockKeys keys, String owner, String grantId, long leaseMs) {
        return ReentrantKind.renewReentrant(scripts, keys, owner, grantId, leaseMs);
    }

    @Override
    String waitChannel(LockKeys keys, String owner) {
        return keys.waiterChannelPrefix() + owner;
    }

    @Override
    boolean waitsOnOwnChannel() {
        return true;
    }

    /**
     * Leaves the queue, so a timed-out or interrupted waiter leaves nothing behind in Redis, and gives
     * back a grant a release made to it meanwhile. Should Redis not answer, the engine keeps trying in
     * the background until the waiter's lease would have ended.
     */
    @Override
    boolean grantedByRelease() {
        return true;
    }

    @Override
    boolean leavesWhenGivingUp() {
        return true;
    }

    @Override
    public CompletableFuture<?> gaveUp(ScriptCalls scripts, LockKeys keys, ScriptArgs.Leave l) {
        return scripts.integer(
                LockScript.FAIR_LEAVE,
                new String[] {keys.lock(), keys.queue(), keys.timeouts(), keys.waiting(), keys.fence()},
                l.owner(),
                keys.waiterChannelPrefix(),
                wakeMessage(l.owner()),
                l.grantId(),
                ScriptArgs.decimal(l.fenceTtlMs()),
                l.waitId());
    }

    /**
     * False: the Redis queue is the one arrival order for every thread of every process. A local gate
     * would let one thread per JVM into that queue and hand its permit to whichever local thread the
     * semaphore picks, so a thread that came later could pass threads queued before it elsewhere.
     * Each waiting thread costs its own subscription and a short script per recheck instead.
     */
    @Override
    boolean localQueue() {
        return false;
    }

    /** Owner ids start with the client id, so this tells which client passed the turn on. */
    private static String wakeMessage(String owner) {
        return WakeupHub.directed(owner);
    }
}
