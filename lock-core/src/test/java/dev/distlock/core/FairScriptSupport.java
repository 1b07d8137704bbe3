package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.redis.WakeupHub;
import dev.distlock.core.internal.redis.script.LockScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What the fair-lock script tests share: the fair scripts called as the engine calls them (acquire,
 * release, leave), each under an owner's usual grant id unless a test names another, and the waits and
 * margins they pass.
 */
abstract class FairScriptSupport extends ScriptTestSupport {

    FairScriptSupport() {
        super("fair-script");
    }

    static final long RECHECK_MS = 1_000;
    static final long MARGIN_MS = 3_000;
    static final long WAIT_MS = 60_000;

    /** The grant id an owner's attempts use in these tests: a waiter keeps one id across its attempts. */
    static String grantOf(String owner) {
        return "g:" + owner;
    }

    /** A new hold's attempt under the owner's usual grant id. */
    List<Object> fair(String owner, long leaseMs, long waitMs) throws Exception {
        return fair(owner, leaseMs, 0, grantOf(owner), waitMs);
    }

    List<Object> fair(String owner, long leaseMs, int held, String grant, long waitMs) throws Exception {
        return scripts.array(
                        LockScript.FAIR_ACQUIRE,
                        new String[] {keys.lock(), keys.queue(), keys.timeouts(), keys.fence(), keys.waiting()},
                        owner,
                        Long.toString(leaseMs),
                        Long.toString(FENCE_TTL_MS),
                        Integer.toString(held),
                        grant,
                        Long.toString(waitMs),
                        Long.toString(RECHECK_MS),
                        Long.toString(MARGIN_MS),
                        keys.waiterChannelPrefix(),
                        WakeupHub.directed(owner))
                .get(5, TimeUnit.SECONDS);
    }

    /** The last release of the owner's usual grant. */
    long fairRelease(String owner) throws Exception {
        return fairRelease(owner, grantOf(owner), 1);
    }

    long fairRelease(String owner, String grant, int held) throws Exception {
        return fairRelease(owner, grant, held, NOTE_TTL_MS);
    }

    long fairRelease(String owner, String grant, int held, long noteTtlMs) throws Exception {
        return (Long) fairRelease(owner, grant, held, noteTtlMs, "").get(0);
    }

    /** A release by the client whose owner ids start with {@code localOwners}; the whole reply. */
    List<Object> fairRelease(String owner, String grant, int held, long noteTtlMs, String localOwners)
            throws Exception {
        return fairRelease(owner, grant, held, noteTtlMs, localOwners, 0, "");
    }

    /**
     * A release by the client whose owner ids start with {@code localOwners}, which may pass a grant down
     * {@code cohortMax} of its waiters and passed this one down {@code served}; the whole reply.
     */
    List<Object> fairRelease(
            String owner, String grant, int held, long noteTtlMs, String localOwners, int cohortMax, String served)
            throws Exception {
        return fairRelease(owner, grant, held, noteTtlMs, localOwners, cohortMax, served, "call-1");
    }

    /** The same, as release call {@code callId}: a command sent again has the same id, another call another. */
    List<Object> fairRelease(
            String owner,
            String grant,
            int held,
            long noteTtlMs,
            String localOwners,
            int cohortMax,
            String served,
            String callId)
            throws Exception {
        return scripts.array(
                        LockScript.FAIR_RELEASE,
                        new String[] {
                            keys.lock(), keys.queue(), keys.timeouts(), keys.note(owner), keys.waiting(), keys.fence()
                        },
                        owner,
                        grant,
                        Integer.toString(held),
                        keys.waiterChannelPrefix(),
                        WakeupHub.directed(owner.substring(0, owner.indexOf(':'))),
                        Long.toString(noteTtlMs),
                        Long.toString(FENCE_TTL_MS),
                        localOwners,
                        Integer.toString(cohortMax),
                        served,
                        callId)
                .get(5, TimeUnit.SECONDS);
    }

    /** What a release sent again answers for the grant its first run made and answered with {@code first}. */
    static List<Object> sentAgain(List<Object> first) {
        List<Object> again = new java.util.ArrayList<>(first);
        again.set(0, 2L);
        return again;
    }

    long fairLeave(String owner) throws Exception {
        return fairLeave(owner, grantOf(owner));
    }

    long fairLeave(String owner, String grant) throws Exception {
        return fairLeave(owner, grant, grant);
    }

    /** A leave of the wait whose attempts carried {@code waitId}, giving back a grant made under {@code grant}. */
    long fairLeave(String owner, String waitId, String grant) throws Exception {
        return scripts.integer(
                        LockScript.FAIR_LEAVE,
                        new String[] {keys.lock(), keys.queue(), keys.timeouts(), keys.waiting(), keys.fence()},
                        owner,
                        keys.waiterChannelPrefix(),
                        WakeupHub.directed(owner),
                        grant,
                        Long.toString(FENCE_TTL_MS),
                        waitId)
                .get(5, TimeUnit.SECONDS);
    }

    /** Asserts that {@code owner} holds the lock under its usual grant id, granted but not yet taken up. */
    void assertGrantedTo(String owner) {
        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(owner, "~token", "~req")
                .containsEntry(owner, "1")
                .containsEntry("~req", grantOf(owner));
    }

    /** Lets at least {@code ms} of server time pass. */
    void await(long ms) {
        long until = serverMillis() + ms;
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> serverMillis() > until);
    }
}
