package dev.distlock.core;

import dev.distlock.core.script.LockScript;
import dev.distlock.core.script.ScriptRunner;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The reentrant lock: one hash of owner -> hold count, any owner may take it when free. */
final class ReentrantKind extends LockKind {

    static final ReentrantKind INSTANCE = new ReentrantKind();

    private ReentrantKind() {
        super(LockClient.REENTRANT);
    }

    @Override
    CompletableFuture<List<Object>> acquire(ScriptRunner scripts, LockKeys keys, String owner, String leaseMs, String fenceTtlMs,
            long waitMs) {
        return scripts.array(LockScript.ACQUIRE, new String[] {keys.lock(), keys.fence()}, owner, leaseMs, fenceTtlMs);
    }

    @Override
    CompletableFuture<Long> release(ScriptRunner scripts, LockKeys keys, String owner, String wakeMessage) {
        return scripts.integer(LockScript.RELEASE, new String[] {keys.lock(), keys.channel()}, owner, wakeMessage);
    }

    @Override
    CompletableFuture<Long> renew(ScriptRunner scripts, LockKeys keys, String owner, String leaseMs) {
        return scripts.integer(LockScript.RENEW, new String[] {keys.lock()}, owner, leaseMs);
    }
}
