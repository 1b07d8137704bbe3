package dev.distlock.core;

import dev.distlock.core.internal.redis.script.LockScript;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the read/write script tests share: the rw-*.lua scripts called as the engine calls them (read and
 * write attempts, a writer's give-up, releases, renewals), each under an owner's usual grant id for its
 * kind unless a test names another.
 */
abstract class ReadWriteScriptSupport extends ScriptTestSupport {

    ReadWriteScriptSupport() {
        super("rw-script");
    }

    static final long LEASE = 10_000;

    /** How long a waiting writer's mark holds new readers back at the most, as the engine's does. */
    static final long MARK_MS = 2_000;

    /** The grant id an owner's holds of {@code kind} use in these tests. */
    static String grantOf(String kind, String owner) {
        return "g" + kind + ":" + owner;
    }

    List<Object> read(String owner, long leaseMs) throws Exception {
        return read(owner, leaseMs, 0, grantOf("r", owner));
    }

    List<Object> read(String owner, long leaseMs, int held, String grant) throws Exception {
        return scripts.array(
                        LockScript.RW_READ_ACQUIRE,
                        new String[] {keys.lock(), keys.fence(), keys.writers()},
                        owner,
                        Long.toString(leaseMs),
                        Long.toString(FENCE_TTL_MS),
                        Integer.toString(held),
                        grant)
                .get(5, TimeUnit.SECONDS);
    }

    List<Object> write(String owner, long leaseMs) throws Exception {
        return write(owner, leaseMs, 0, grantOf("w", owner));
    }

    List<Object> write(String owner, long leaseMs, int held, String grant) throws Exception {
        return write(owner, leaseMs, held, grant, 0);
    }

    /** A write attempt of a caller that still waits {@code waitMs} (0: a single attempt). */
    List<Object> write(String owner, long leaseMs, int held, String grant, long waitMs) throws Exception {
        return scripts.array(
                        LockScript.RW_WRITE_ACQUIRE,
                        new String[] {keys.lock(), keys.fence(), keys.writers()},
                        owner,
                        Long.toString(leaseMs),
                        Long.toString(FENCE_TTL_MS),
                        Integer.toString(held),
                        grant,
                        Long.toString(waitMs),
                        Long.toString(MARK_MS))
                .get(5, TimeUnit.SECONDS);
    }

    long writerLeaves(String owner, String waitId, String message) throws Exception {
        return scripts.integer(
                        LockScript.RW_LEAVE,
                        new String[] {keys.writers(), keys.leaveNote("w:" + owner)},
                        owner,
                        keys.channel(),
                        message,
                        waitId,
                        Long.toString(NOTE_TTL_MS))
                .get(5, TimeUnit.SECONDS);
    }

    /** The last release of the owner's hold of {@code kind} under its usual grant id. */
    long release(String kind, String owner, String message) throws Exception {
        return release(kind, owner, grantOf(kind, owner), 1, message, NOTE_TTL_MS);
    }

    long release(String kind, String owner, String grant, int held, String message, long noteTtlMs) throws Exception {
        return scripts.integer(
                        LockScript.RW_RELEASE,
                        new String[] {keys.lock(), keys.note(kind + ':' + owner)},
                        kind,
                        owner,
                        grant,
                        Integer.toString(held),
                        keys.channel(),
                        message,
                        Long.toString(noteTtlMs))
                .get(5, TimeUnit.SECONDS);
    }

    long rwRenew(String kind, String owner, long leaseMs) throws Exception {
        return rwRenew(kind, owner, grantOf(kind, owner), leaseMs);
    }

    long rwRenew(String kind, String owner, String grant, long leaseMs) throws Exception {
        return scripts.integer(
                        LockScript.RW_RENEW, new String[] {keys.lock()}, kind, owner, grant, Long.toString(leaseMs))
                .get(5, TimeUnit.SECONDS);
    }
}
