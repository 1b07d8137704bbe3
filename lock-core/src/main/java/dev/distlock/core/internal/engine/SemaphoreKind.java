package dev.distlock.core.internal.engine;

import dev.distlock.core.LockType;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.SemaphorePermitsException;
import dev.distlock.core.internal.redis.WakeupHub;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.internal.redis.script.ScriptCalls;
import dev.distlock.core.internal.support.Futures;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Permits of a semaphore: one hash per name holding the number of permits and, per holder, its permits,
 * fencing token, grant id and lease end (see the sem-*.lua scripts), so a holder that died gives its
 * permits back when its own lease ends. Every grant is a holder of its own (a handle, never re-entered).
 * Holders share, so local callers never queue in front of Redis and a release wakes every waiter; a fair
 * semaphore serves its waiters in the order they first asked, each keeping its place by looking again
 * at least every half of {@link #PLACE_MS}.
 */
public final class SemaphoreKind extends LockKind {

    /**
     * How long a fair waiter's place holds unless it looks again, in ms: a waiter that vanished holds
     * those behind it back that long at most.
     */
    public static final long PLACE_MS = 2000;

    private static final String PLACE_ARG = Long.toString(PLACE_MS);

    /**
     * What a fair grant that leaves permits free publishes: it starts with no client's id, so every
     * client's waiters look again (the next in line may now be served), and wakes all of them.
     */
    private static final String NEXT_IN_LINE = "~next" + WakeupHub.WAKE_ALL;

    private final int permits;
    private final int wanted;
    private final boolean fair;

    private SemaphoreKind(int permits, int wanted, boolean fair) {
        super(fair ? LockType.FAIR_SEMAPHORE : LockType.SEMAPHORE);
        this.permits = permits;
        this.wanted = wanted;
        this.fair = fair;
    }

    /** Takes {@code wanted} of a semaphore's {@code permits} per grant; both already checked. */
    public static SemaphoreKind of(int permits, int wanted, boolean fair) {
        return new SemaphoreKind(permits, wanted, fair);
    }

    @Override
    public CompletableFuture<List<Object>> acquire(ScriptCalls scripts, LockKeys keys, ScriptArgs.Acquire a) {
        CompletableFuture<List<Object>> reply = scripts.array(
                LockScript.SEM_ACQUIRE,
                new String[] {keys.lock(), keys.fence(), keys.permits(), keys.waiters()},
                a.owner(),
                ScriptArgs.decimal(a.leaseMs()),
                ScriptArgs.decimal(a.fenceTtlMs()),
                a.grantId(),
                ScriptArgs.decimal(a.waitMs()),
                ScriptArgs.decimal(permits),
                ScriptArgs.decimal(wanted),
                fair ? "1" : "0",
                PLACE_ARG,
                keys.channel(),
                NEXT_IN_LINE);
        // Derived, as ReadWriteKind's, so that a cancel reaches the command.
        return Futures.derive(
                reply,
                r -> {
                    if ((Long) r.get(0) == -2L) {
                        throw new SemaphorePermitsException(keys.lock(), permits, (Long) r.get(1));
                    }
                    return r;
                },
                orphan -> {});
    }

    @Override
    public CompletableFuture<Long> release(ScriptCalls scripts, LockKeys keys, ScriptArgs.Release r) {
        return scripts.integer(
                LockScript.SEM_RELEASE,
                new String[] {keys.lock(), keys.note(r.owner()), keys.waiters()},
                r.owner(),
                r.grantId(),
                keys.channel(),
                r.wakeMessage(),
                ScriptArgs.decimal(r.noteTtlMs()));
    }

    @Override
    public CompletableFuture<Long> renew(
            ScriptCalls scripts, LockKeys keys, String owner, String grantId, long leaseMs) {
        return scripts.integer(
                LockScript.SEM_RENEW, new String[] {keys.lock()}, owner, grantId, ScriptArgs.decimal(leaseMs));
    }

    /** The permits of the semaphore at {@code keys} held now. */
    public static CompletableFuture<Long> used(ScriptCalls scripts, LockKeys keys) {
        return scripts.integer(LockScript.SEM_USED, new String[] {keys.lock()});
    }

    @Override
    boolean leavesWhenGivingUp() {
        return fair;
    }

    @Override
    public CompletableFuture<?> gaveUp(ScriptCalls scripts, LockKeys keys, ScriptArgs.Leave args) {
        if (!fair) {
            return CompletableFuture.completedFuture(null);
        }
        return scripts.integer(
                LockScript.SEM_LEAVE,
                new String[] {keys.waiters(), keys.leaveNote(args.owner()), keys.lock()},
                args.owner(),
                keys.channel(),
                args.wakeMessage(),
                args.waitId(),
                ScriptArgs.decimal(args.noteTtlMs()),
                args.grantId());
    }

    @Override
    boolean localQueue() {
        return false;
    }

    @Override
    boolean wakesAllOnRelease() {
        return true;
    }
}
