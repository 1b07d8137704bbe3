package dev.distlock.core.internal.engine;

import dev.distlock.core.LockType;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.internal.redis.script.ScriptCalls;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The reentrant lock: one hash of owner -> hold count, any owner may take it when free. */
public final class ReentrantKind extends LockKind {

    public static final ReentrantKind INSTANCE = new ReentrantKind(true);

    /**
     * The same lock for a leadership, which {@link dev.distlock.core.LockClientOptions#maxHold()} does not
     * cap: a leader holds its role for as long as it keeps its lease, and steps down by its own clock.
     */
    public static final ReentrantKind LEADERSHIP = new ReentrantKind(false);

    private final boolean capped;

    private ReentrantKind(boolean capped) {
        super(LockType.REENTRANT);
        this.capped = capped;
    }

    @Override
    boolean capped() {
        return capped;
    }

    @Override
    public CompletableFuture<List<Object>> acquire(ScriptCalls scripts, LockKeys keys, ScriptArgs.Acquire a) {
        return scripts.array(
                LockScript.ACQUIRE,
                new String[] {keys.lock(), keys.fence()},
                a.owner(),
                ScriptArgs.decimal(a.leaseMs()),
                ScriptArgs.decimal(a.fenceTtlMs()),
                ScriptArgs.decimal(a.held()),
                a.grantId(),
                ScriptArgs.decimal(a.tokenBlock()),
                // A caller that waits marks the lock as waited for, so that the release wakes it; with cohorting
                // on (a block of tokens) its client is also recorded, for a release to reserve the lock for it.
                ScriptArgs.decimal(a.waitMs()));
    }

    @Override
    public CompletableFuture<Long> release(ScriptCalls scripts, LockKeys keys, ScriptArgs.Release r) {
        return scripts.integer(
                LockScript.RELEASE,
                new String[] {keys.lock(), keys.note(r.owner()), keys.fence()},
                r.owner(),
                r.grantId(),
                ScriptArgs.decimal(r.held()),
                keys.channel(),
                r.wakeMessage(),
                ScriptArgs.decimal(r.noteTtlMs()),
                ScriptArgs.decimal(r.keepMs()),
                ScriptArgs.decimal(r.reserveMs()),
                r.keepPastLease() ? "1" : "0",
                ScriptArgs.decimal(r.fenceTtlMs()),
                ScriptArgs.decimal(r.messageGrantMs()));
    }

    /**
     * Reserves the next {@code block} fencing tokens for grant {@code grantId} of {@code owner} unless
     * another client waits: {@code [first, last]}, or {@code [0, 0]} when refused.
     */
    public static CompletableFuture<List<Object>> refill(
            ScriptCalls scripts, LockKeys keys, String owner, String grantId, int block, long fenceTtlMs) {
        return scripts.array(
                LockScript.REFILL,
                new String[] {keys.lock(), keys.fence()},
                owner,
                grantId,
                ScriptArgs.decimal(block),
                ScriptArgs.decimal(fenceTtlMs));
    }

    @Override
    boolean keepsAfterRelease() {
        return true;
    }

    @Override
    boolean handsOnLocally() {
        return true;
    }

    @Override
    boolean grantedByRelease() {
        return true;
    }

    @Override
    boolean recordsWaiters() {
        return true;
    }

    @Override
    public CompletableFuture<?> gaveUp(ScriptCalls scripts, LockKeys keys, ScriptArgs.Leave args) {
        return scripts.integer(
                LockScript.LEAVE,
                new String[] {keys.lock(), keys.leaveNote(args.owner())},
                args.owner(),
                keys.channel(),
                args.wakeMessage(),
                args.waitId(),
                ScriptArgs.decimal(args.noteTtlMs()),
                args.grantId());
    }

    @Override
    public CompletableFuture<Long> renew(
            ScriptCalls scripts, LockKeys keys, String owner, String grantId, long leaseMs) {
        return renewReentrant(scripts, keys, owner, grantId, leaseMs);
    }

    /** Renewal of the reentrant hash, which the fair lock shares. */
    static CompletableFuture<Long> renewReentrant(
            ScriptCalls scripts, LockKeys keys, String owner, String grantId, long leaseMs) {
        return scripts.integer(
                LockScript.RENEW, new String[] {keys.lock()}, owner, grantId, ScriptArgs.decimal(leaseMs));
    }
}
