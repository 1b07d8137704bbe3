package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.engine.ReentrantKind;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.internal.redis.script.ScriptRunner;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fixture of the tests that run lock scripts directly: a real Redis, a plain connection, fresh keys,
 * and the reentrant scripts called with their ARGV spelled out. The caller plays the engine: it says
 * how many holds the owner has and which grant id it uses, so a test can send the very same call twice.
 *
 * <p>Every call through {@link #scripts} is differential ({@link DifferentialScripts}): it also runs on
 * local mode's MemoryRedis, from the state its KEYS had in Redis, and the test fails after it unless
 * both agreed on the reply, the KEYS' state afterwards and the messages published. Clock-derived numbers may differ by the
 * time between the two runs, measured with TIME around each Redis run: see {@link KeyStates.Tolerance}.
 */
abstract class ScriptTestSupport {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    static final long FENCE_TTL_MS = Duration.ofDays(1).toMillis();
    /** How long a last release's note lives unless a test says otherwise. */
    static final long NOTE_TTL_MS = 60_000;

    /** Fencing tokens a new reentrant grant reserves in {@link #acquireWaiting} (its own and 16 local hand-offs). */
    static final int TOKEN_BLOCK = 17;

    /** How long a last release reserves a reentrant lock for another client that waits. */
    static final long RESERVE_MS = 2_000;
    /**
     * The longest TTL of a grant a last release makes to another client's recorded waiter and carries in
     * its message (release.lua's ARGV[11]); 0, the default here, grants nothing that way (reservations only).
     */
    long messageGrantMs = 0;
    /** About eleven days in microseconds: a counter this far ahead of the server clock decides the next token. */
    static final long FAR_AHEAD_MICROS = 1_000_000_000_000L;

    static final String A = "client-a:1";
    static final String B = "client-b:1";
    static final String C = "client-c:1";
    static final String D = "client-d:1";

    private final String keyHint;
    RedisProbe probe;
    DifferentialScripts differential;
    RedisCommands<String, String> sync;
    ScriptRunner scripts;
    LockKeys keys;

    ScriptTestSupport(String keyHint) {
        this.keyHint = keyHint;
    }

    @BeforeEach
    void connect() throws Exception {
        probe = RedisProbe.connect(redis.server());
        sync = probe.sync();
        differential = new DifferentialScripts(redis.server(), probe.async());
        scripts = new ScriptRunner(differential.commands());
        keys = LockKeys.of("lock:", Names.fresh(keyHint));
    }

    @AfterEach
    void close() {
        List<String> mismatches = differential.finish();
        differential.close();
        probe.close();
        assertThat(mismatches)
                .as("script calls on which MemoryRedis and Redis differ")
                .isEmpty();
    }

    /** acquire.lua as a single attempt reserving no tokens: {1, token, count} or {0, ms busy, 0}. */
    List<Object> acquire(String owner, long leaseMs, int held, String grant) throws Exception {
        return acquire(owner, leaseMs, held, grant, 1, 0);
    }

    /** acquire.lua from a caller that still waits 1 s (so it is recorded as waiting), reserving {@link #TOKEN_BLOCK} tokens. */
    List<Object> acquireWaiting(String owner, long leaseMs, int held, String grant) throws Exception {
        return acquire(owner, leaseMs, held, grant, TOKEN_BLOCK, 1_000);
    }

    List<Object> acquire(String owner, long leaseMs, int held, String grant, int tokenBlock, long waitMs)
            throws Exception {
        return scripts.array(
                        LockScript.ACQUIRE,
                        new String[] {keys.lock(), keys.fence()},
                        owner,
                        Long.toString(leaseMs),
                        Long.toString(FENCE_TTL_MS),
                        Integer.toString(held),
                        grant,
                        Integer.toString(tokenBlock),
                        Long.toString(waitMs))
                .get(5, TimeUnit.SECONDS);
    }

    /** A new hold of {@code owner} under {@code grant}; fails the test unless granted. Returns the token. */
    long grant(String owner, long leaseMs, String grant) throws Exception {
        List<Object> reply = acquire(owner, leaseMs, 0, grant);
        assertThat(reply.get(0)).as("grant %s to %s", grant, owner).isEqualTo(1L);
        return (Long) reply.get(1);
    }

    /** release.lua with the default note TTL: 1 released, 0 still held, -1 not held by this grant. */
    long release(String owner, String grant, int held, String message) throws Exception {
        return release(owner, grant, held, message, NOTE_TTL_MS);
    }

    long release(String owner, String grant, int held, String message, long noteTtlMs) throws Exception {
        return release(owner, grant, held, message, noteTtlMs, 0);
    }

    /** release.lua whose last release leaves the lock taken by nobody for {@code keepMs} (hold-at-least). */
    long release(String owner, String grant, int held, String message, long noteTtlMs, long keepMs) throws Exception {
        return scripts.integer(
                        LockScript.RELEASE,
                        new String[] {keys.lock(), keys.note(owner), keys.fence()},
                        owner,
                        grant,
                        Integer.toString(held),
                        keys.channel(),
                        message,
                        Long.toString(noteTtlMs),
                        Long.toString(keepMs),
                        Long.toString(RESERVE_MS),
                        "0",
                        Long.toString(FENCE_TTL_MS),
                        Long.toString(messageGrantMs))
                .get(5, TimeUnit.SECONDS);
    }

    /**
     * leave.lua ending the wait {@code waitId}: 1 the owner's client was recorded as waiting, 2 a reservation for
     * it was handed back, else 0.
     */
    long leave(String owner, String waitId, String message) throws Exception {
        return scripts.integer(
                        LockScript.LEAVE,
                        new String[] {keys.lock(), keys.leaveNote(owner)},
                        owner,
                        keys.channel(),
                        message,
                        waitId,
                        Long.toString(NOTE_TTL_MS),
                        waitId)
                .get(5, TimeUnit.SECONDS);
    }

    /** refill.lua reserving {@link #TOKEN_BLOCK} tokens: {first, last} of the block, or {0, 0} when refused. */
    List<Object> refill(String owner, String grant) throws Exception {
        return ReentrantKind.refill(scripts, keys, owner, grant, TOKEN_BLOCK, FENCE_TTL_MS)
                .get(5, TimeUnit.SECONDS);
    }

    /** renew.lua: 1 renewed, 0 not held by this grant. */
    long renew(String owner, String grant, long leaseMs) throws Exception {
        return scripts.integer(LockScript.RENEW, new String[] {keys.lock()}, owner, grant, Long.toString(leaseMs))
                .get(5, TimeUnit.SECONDS);
    }

    /** force-release.lua as a new request: 1 deleted, 0 was free. */
    long forceRelease(String message) throws Exception {
        return forceRelease(message, "force-" + java.util.UUID.randomUUID());
    }

    /** force-release.lua with request id {@code request}: the same id again answers as its first run did. */
    long forceRelease(String message, String request) throws Exception {
        return scripts.integer(
                        LockScript.FORCE_RELEASE,
                        new String[] {keys.lock(), keys.note("~force:" + request)},
                        keys.channel(),
                        message,
                        Long.toString(NOTE_TTL_MS))
                .get(5, TimeUnit.SECONDS);
    }

    /** raise-fence.lua: 1 when {@code owner} holds the lock, 0 when not. */
    long raiseFence(String owner, long token) throws Exception {
        return scripts.integer(
                        LockScript.RAISE_FENCE,
                        new String[] {keys.lock(), keys.fence()},
                        owner,
                        Long.toString(token),
                        Long.toString(FENCE_TTL_MS))
                .get(5, TimeUnit.SECONDS);
    }

    /** The note a last release of {@code owner} leaves (rw holds: pass {@code kind:owner}). */
    String noteKey(String hold) {
        return keys.lock() + ":released:" + hold;
    }

    long fenceCounter() {
        return Long.parseLong(sync.get(keys.fence()));
    }

    long serverMicros() {
        List<String> time = sync.time();
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }

    long serverMillis() {
        return serverMicros() / 1_000;
    }
}
