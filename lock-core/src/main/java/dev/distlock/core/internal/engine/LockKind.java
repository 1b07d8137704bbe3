package dev.distlock.core.internal.engine;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockType;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.ScriptCalls;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The Redis side of one kind of lock: which scripts acquire, release and renew it, which channel a
 * waiter listens on, and whether local threads queue in front of Redis. {@link LockEngine} does
 * the rest (waiting, watchdog, local holds, events) the same way for every kind. Every script is
 * idempotent: the same call sent twice (a reply lost, the command re-sent) has the effect of one.
 */
public abstract sealed class LockKind permits ReentrantKind, FairKind, ReadWriteKind, SemaphoreKind {

    /** The kind's type in events and metrics. */
    public final LockType type;

    LockKind(LockType type) {
        this.type = type;
    }

    /**
     * One attempt. The reply is {@code {1, fencing token, hold count}} when granted and
     * {@code {0, ms to wait at most, 0}} when busy.
     */
    public abstract CompletableFuture<List<Object>> acquire(
            ScriptCalls scripts, LockKeys keys, ScriptArgs.Acquire args);

    /** Releases one hold: 1 released, 0 still held, -1 not held by this grant. */
    abstract CompletableFuture<Long> release(ScriptCalls scripts, LockKeys keys, ScriptArgs.Release args);

    /** Extends the lease while {@code owner} holds grant {@code grantId}: 1 renewed, 0 not held. */
    abstract CompletableFuture<Long> renew(
            ScriptCalls scripts, LockKeys keys, String owner, String grantId, long leaseMs);

    /** The channel whose messages wake {@code owner} while it waits. */
    String waitChannel(LockKeys keys, String owner) {
        return keys.channel();
    }

    /**
     * Whether each waiter has a wait channel of its own (fair locks). Such a channel stays subscribed for a
     * while after a wait, so a thread that waits again joins it before it tries, sparing a subscription
     * and a second try; and a grant made to such a waiter by a release of its own client is handed to it
     * in-process ({@link GrantOffers}).
     */
    boolean waitsOnOwnChannel() {
        return false;
    }

    /**
     * Whether a last release grants the lock to a waiter of another client at once and carries the grant
     * in its wake-up message, so that the waiter holds it on receipt ({@link GrantOffers}): fair locks
     * (the head of their queue) and reentrant locks (the waiting request recorded in the lock).
     */
    boolean grantedByRelease() {
        return false;
    }

    /** Whether {@link #gaveUp} has something to do in Redis (a fair lock's queue place to leave). */
    boolean leavesWhenGivingUp() {
        return false;
    }

    /**
     * Whether a caller that waited in Redis is recorded there as its client waiting (so that a release
     * reserves the lock for that client), and so must {@link #gaveUp} when it stops waiting.
     */
    boolean recordsWaiters() {
        return false;
    }

    /**
     * Called when a waiter stops waiting without the lock (timeout, interrupt, error), for kinds that
     * {@link #leavesWhenGivingUp} or {@link #recordsWaiters}.
     */
    CompletableFuture<?> gaveUp(ScriptCalls scripts, LockKeys keys, ScriptArgs.Leave args) {
        return CompletableFuture.completedFuture(null);
    }

    /**
     * Whether threads of one JVM queue locally so that one at a time tries in Redis. True for
     * exclusive kinds; a shared kind (read locks) must let every local reader try.
     */
    boolean localQueue() {
        return true;
    }

    /**
     * Whether a release should wake every waiter rather than one: true for shared kinds, where one
     * release can let several readers (or readers and a writer) try at once.
     */
    boolean wakesAllOnRelease() {
        return false;
    }

    /**
     * Whether a last release can leave the lock taken for a while (hold-at-least, {@link
     * ScriptArgs.Release#keepMs()}); only the reentrant lock's script can.
     */
    boolean keepsAfterRelease() {
        return false;
    }

    /**
     * Whether a hold in Redis may pass from one local owner to the next waiting at the local gate
     * without a round trip (lock cohorting), drawing its fencing token from the block its grant
     * reserved. Only the reentrant lock: a fair lock must keep arrival order across processes.
     */
    boolean handsOnLocally() {
        return false;
    }

    /** Whether {@link dev.distlock.core.LockClientOptions#maxHold()} caps holds of this kind. */
    boolean capped() {
        return true;
    }

    /**
     * Refuses an acquire that could never succeed for {@code owner} (for example a read holder asking
     * for the write lock, which would wait for itself); called before any wait.
     */
    void checkAcquire(HoldTable holds, LockInfo info, LockKeys keys, String owner) {}

    @Override
    public String toString() {
        return type.name();
    }
}
