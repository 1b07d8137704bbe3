package dev.distlock.core;

import dev.distlock.core.script.LockScript;
import dev.distlock.core.script.ScriptRunner;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The two kinds of a read/write lock, sharing one hash per name: a {@code mode} field plus, per
 * hold, a count, a fencing token and its own lease end, so one crashed reader cannot keep the lock
 * (see the rw-*.lua scripts). Readers share and never queue locally; a writer excludes everyone but
 * may take read holds itself (downgrade); a reader cannot upgrade.
 */
final class ReadWriteKind extends LockKind {

    static final ReadWriteKind READ = new ReadWriteKind(LockType.READ, "r", LockScript.RW_READ_ACQUIRE);
    static final ReadWriteKind WRITE = new ReadWriteKind(LockType.WRITE, "w", LockScript.RW_WRITE_ACQUIRE);

    /** The hold's field prefix in the hash ({@code r} or {@code w}). */
    private final String field;

    private final LockScript acquireScript;

    private ReadWriteKind(LockType type, String field, LockScript acquireScript) {
        super(type);
        this.field = field;
        this.acquireScript = acquireScript;
    }

    @Override
    CompletableFuture<List<Object>> acquire(ScriptRunner scripts, LockKeys keys, ScriptArgs.Acquire a) {
        CompletableFuture<List<Object>> reply = scripts.array(
                acquireScript,
                new String[] {keys.lock(), keys.fence()},
                a.owner(),
                ScriptArgs.decimal(a.leaseMs()),
                ScriptArgs.decimal(a.fenceTtlMs()),
                ScriptArgs.decimal(a.held()),
                a.grantId());
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
    CompletableFuture<Long> release(ScriptRunner scripts, LockKeys keys, ScriptArgs.Release r) {
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
    CompletableFuture<Long> renew(ScriptRunner scripts, LockKeys keys, String owner, String grantId, long leaseMs) {
        return scripts.integer(
                LockScript.RW_RENEW, new String[] {keys.lock()}, field, owner, grantId, ScriptArgs.decimal(leaseMs));
    }

    @Override
    boolean localQueue() {
        return this == WRITE;
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
