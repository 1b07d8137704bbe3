package dev.distlock.core.internal.engine;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockType;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.LockUpgradeException;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.internal.redis.script.ScriptCalls;
import dev.distlock.core.internal.support.Futures;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The two kinds of a read/write lock, sharing one hash per name: a {@code mode} field plus, per
 * hold, a count, a fencing token and its own lease end, so one crashed reader cannot keep the lock
 * (see the rw-*.lua scripts). Readers share and never queue locally; a writer excludes everyone but
 * may take read holds itself (downgrade); a reader cannot upgrade. A writer that waits holds new
 * read holds back until it gets in or gives up, so overlapping readers cannot keep it out.
 */
public final class ReadWriteKind extends LockKind {

    public static final ReadWriteKind READ = new ReadWriteKind(LockType.READ, "r", LockScript.RW_READ_ACQUIRE);
    public static final ReadWriteKind WRITE = new ReadWriteKind(LockType.WRITE, "w", LockScript.RW_WRITE_ACQUIRE);

    /**
     * How long a waiting writer's mark holds new readers back unless the writer renews it, in ms. A
     * waiting writer looks again at least every half of it (which renews the mark), so a writer that
     * vanished while it waited holds readers back at most this long.
     */
    public static final long WRITER_MARK_MS = 2000;

    private static final String WRITER_MARK_ARG = Long.toString(WRITER_MARK_MS);

    /** The hold's field prefix in the hash ({@code r} or {@code w}). */
    private final String field;

    private final LockScript acquireScript;

    private ReadWriteKind(LockType type, String field, LockScript acquireScript) {
        super(type);
        this.field = field;
        this.acquireScript = acquireScript;
    }

    @Override
    public CompletableFuture<List<Object>> acquire(ScriptCalls scripts, LockKeys keys, ScriptArgs.Acquire a) {
        String owner = a.owner();
        String lease = ScriptArgs.decimal(a.leaseMs());
        String fenceTtl = ScriptArgs.decimal(a.fenceTtlMs());
        String held = ScriptArgs.decimal(a.held());
        String[] args = this == WRITE
                // a writer that waits holds new readers back meanwhile
                ? new String[] {
                    owner, lease, fenceTtl, held, a.grantId(), ScriptArgs.decimal(a.waitMs()), WRITER_MARK_ARG
                }
                : new String[] {owner, lease, fenceTtl, held, a.grantId()};
        CompletableFuture<List<Object>> reply =
                scripts.array(acquireScript, new String[] {keys.lock(), keys.fence(), keys.writers()}, args);
        // Derived so that a cancel reaches the command (a stage made with thenApply would swallow it): an
        // acquire given up on must not be sent again after a reconnect, where it could land after the
        // give-back that followed it and leave a grant nobody holds for its whole lease. A grant made as it
        // is cancelled needs nothing here: whoever gave up gives it back by its grant id.
        return Futures.derive(
                reply,
                r -> {
                    if ((Long) r.get(0) == -1L) {
                        // Redis knows of a read hold this client had forgotten: refuse rather than wait for ever.
                        throw new LockUpgradeException(keys.lock());
                    }
                    return r;
                },
                orphan -> {});
    }

    @Override
    public CompletableFuture<Long> release(ScriptCalls scripts, LockKeys keys, ScriptArgs.Release r) {
        return scripts.integer(
                LockScript.RW_RELEASE,
                new String[] {keys.lock(), keys.note(field + ':' + r.owner())},
                field,
                r.owner(),
                r.grantId(),
                ScriptArgs.decimal(r.held()),
                keys.channel(),
                r.wakeMessage(),
                ScriptArgs.decimal(r.noteTtlMs()));
    }

    @Override
    public CompletableFuture<Long> renew(
            ScriptCalls scripts, LockKeys keys, String owner, String grantId, long leaseMs) {
        return scripts.integer(
                LockScript.RW_RENEW, new String[] {keys.lock()}, field, owner, grantId, ScriptArgs.decimal(leaseMs));
    }

    @Override
    boolean localQueue() {
        return this == WRITE;
    }

    /** A writer that waited is marked in Redis as waiting (it holds new readers back) until it gives up. */
    @Override
    boolean recordsWaiters() {
        return this == WRITE;
    }

    @Override
    public CompletableFuture<?> gaveUp(ScriptCalls scripts, LockKeys keys, ScriptArgs.Leave args) {
        if (this != WRITE) {
            return CompletableFuture.completedFuture(null);
        }
        return scripts.integer(
                LockScript.RW_LEAVE,
                new String[] {keys.writers(), keys.leaveNote(field + ':' + args.owner())},
                args.owner(),
                keys.channel(),
                args.wakeMessage(),
                args.waitId(),
                ScriptArgs.decimal(args.noteTtlMs()));
    }

    @Override
    boolean wakesAllOnRelease() {
        return true;
    }

    @Override
    void checkAcquire(HoldTable holds, LockInfo info, LockKeys keys, String owner) {
        if (this != WRITE) {
            return;
        }
        long now = System.nanoTime();
        Hold read = holds.get(READ, keys, owner);
        Hold write = holds.get(WRITE, keys, owner);
        if (read != null && read.isLive(now) && (write == null || !write.isLive(now))) {
            throw new LockUpgradeException(info.key());
        }
    }
}
