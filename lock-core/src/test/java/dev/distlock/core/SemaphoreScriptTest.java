package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.redis.script.LockScript;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The sem-*.lua scripts run directly against a real Redis (and, differentially, on MemoryRedis): permits
 * counted across holders, each holder's own lease, the declared number of permits, fair places, wake-ups,
 * fencing tokens, and every call sent twice (a reply lost, the command re-sent) counting once.
 */
class SemaphoreScriptTest extends ScriptTestSupport {

    SemaphoreScriptTest() {
        super("sem-script");
    }

    private static final long LEASE = 10_000;
    private static final long PLACE_MS = 2_000;

    @Test
    void grantsUntilThePermitsAreTakenEachWithAGrowingToken() throws Exception {
        List<Object> a = take(A, 1, "ga");
        List<Object> b = take(B, 2, "gb");
        List<Object> c = take(C, 1, "gc");

        assertThat(a.get(0)).isEqualTo(1L);
        assertThat(b.get(0)).isEqualTo(1L);
        assertThat((Long) b.get(1)).isGreaterThan((Long) a.get(1));
        assertThat(c.get(0)).as("3 of 3 permits are held").isEqualTo(0L);
        assertThat((Long) c.get(1))
                .as("looks again when the first lease ends at the latest")
                .isBetween(1L, LEASE);
        assertThat(used()).isEqualTo(3L);
        assertThat(sync.hget(keys.lock(), "~n")).isEqualTo("3");
        assertThat(sync.get(keys.permits())).isEqualTo("3");
        assertThat(sync.pttl(keys.lock())).isBetween(1L, LEASE);
    }

    @Test
    void theSameRequestSentAgainIsTheSameGrant() throws Exception {
        List<Object> first = take(A, 2, "ga");
        List<Object> again = take(A, 2, "ga");

        assertThat(again).isEqualTo(first);
        assertThat(used()).as("counted once").isEqualTo(2L);
    }

    @Test
    void aReleaseSentTwiceReleasesOnceAndStillAnswersReleased() throws Exception {
        take(A, 2, "ga");
        take(B, 1, "gb");

        assertThat(releaseSem(A, "ga")).isEqualTo(1L);
        assertThat(releaseSem(A, "ga"))
                .as("the note answers the second sending")
                .isEqualTo(1L);
        assertThat(used()).isEqualTo(1L);
        assertThat(releaseSem(A, "other-grant")).isEqualTo(-1L);
    }

    @Test
    void aHolderWhoseLeaseEndedCountsAsFreeAndCannotRenewOrRelease() throws Exception {
        take(A, 2, "ga", 50, 0, false);
        take(B, 1, "gb");
        Thread.sleep(120);

        assertThat(used()).isEqualTo(1L);
        assertThat(take(C, 2, "gc").get(0)).isEqualTo(1L);
        assertThat(renewSem(A, "ga", LEASE)).isEqualTo(0L);
        assertThat(releaseSem(A, "ga")).isEqualTo(-1L);
    }

    @Test
    void renewalExtendsOnlyItsOwnGrant() throws Exception {
        take(A, 1, "ga", 1_000, 0, false);

        assertThat(renewSem(A, "ga", 30_000)).isEqualTo(1L);
        assertThat(renewSem(A, "not-this-grant", 30_000)).isEqualTo(0L);
        assertThat(sync.pttl(keys.lock())).isGreaterThan(20_000L);
        assertThat(Long.parseLong(sync.hget(keys.lock(), "d:" + A)) - serverMillis())
                .isGreaterThan(20_000L);
    }

    @Test
    void anotherNumberOfPermitsIsRefusedWithTheNumberInRedis() throws Exception {
        take(A, 1, "ga");

        List<Object> reply = scripts.array(
                        LockScript.SEM_ACQUIRE, semKeys(), acquireArgs(B, 5, 1, "gb", LEASE, 0, false))
                .get(5, TimeUnit.SECONDS);

        assertThat(reply).containsExactly(-2L, 3L, 0L);
        releaseSem(A, "ga");
        assertThat(sync.get(keys.permits()))
                .as("kept after the last holder left")
                .isEqualTo("3");
    }

    @Test
    void aLastReleaseDeletesTheHashAndWakesThoseWhoWaited() throws Exception {
        take(A, 3, "ga");
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        assertThat(take(B, 1, "gb", LEASE, 60_000, false).get(0)).isEqualTo(0L);

        assertThat(releaseSem(A, "ga")).isEqualTo(1L);

        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("wake:all");
        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void aReleaseNobodyWaitedForPublishesNothing() throws Exception {
        take(A, 1, "ga");
        take(B, 1, "gb");
        BlockingQueue<String> messages = probe.subscribe(keys.channel());

        releaseSem(A, "ga");

        assertThat(messages.poll(300, TimeUnit.MILLISECONDS)).isNull();
    }

    @Test
    void aFairSemaphoreServesTheFirstWaiterFirstEvenWhenALaterOneWouldFit() throws Exception {
        take(A, 2, "ga", LEASE, 0, true);
        List<Object> big = take(B, 2, "gb", LEASE, 60_000, true);
        List<Object> small = take(C, 1, "gc", LEASE, 60_000, true);

        assertThat(big.get(0)).isEqualTo(0L);
        assertThat((Long) big.get(1)).as("looks again within half its place").isBetween(1L, PLACE_MS / 2);
        assertThat(small.get(0)).as("one permit is free, but B asked first").isEqualTo(0L);

        releaseSem(A, "ga");
        assertThat(take(C, 1, "gc", LEASE, 60_000, true).get(0))
                .as("still behind B")
                .isEqualTo(0L);
        assertThat(take(B, 2, "gb", LEASE, 60_000, true).get(0)).isEqualTo(1L);
        assertThat(take(C, 1, "gc", LEASE, 60_000, true).get(0)).isEqualTo(1L);
        assertThat(sync.exists(keys.waiters())).isZero();
    }

    @Test
    void aFairGrantThatLeavesPermitsFreeWakesTheNextInLine() throws Exception {
        take(A, 3, "ga", LEASE, 0, true);
        take(B, 1, "gb", LEASE, 60_000, true);
        take(C, 1, "gc", LEASE, 60_000, true);
        releaseSem(A, "ga");
        BlockingQueue<String> messages = probe.subscribe(keys.channel());

        assertThat(take(B, 1, "gb", LEASE, 60_000, true).get(0)).isEqualTo(1L);

        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("~next:all");
    }

    @Test
    void aFairPlaceThatIsNotRenewedRunsOut() throws Exception {
        take(A, 3, "ga", LEASE, 0, true);
        take(B, 1, "gb", LEASE, 100, true);
        releaseSem(A, "ga");
        Thread.sleep(200);

        assertThat(take(C, 1, "gc", LEASE, 0, true).get(0))
                .as("B's place ran out")
                .isEqualTo(1L);
    }

    @Test
    void aFairWaiterThatGivesUpLeavesItsPlaceGivesBackALateGrantAndWakesTheNext() throws Exception {
        take(A, 3, "ga", LEASE, 0, true);
        take(B, 1, "gb", LEASE, 60_000, true);
        BlockingQueue<String> messages = probe.subscribe(keys.channel());

        assertThat(leaveSem(B, "gb")).isEqualTo(1L);
        assertThat(leaveSem(B, "gb"))
                .as("the same give-up again changes nothing")
                .isEqualTo(0L);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("left");
        assertThat(sync.exists(keys.waiters())).isZero();

        releaseSem(A, "ga");
        take(D, 1, "gd", LEASE, 0, true);
        assertThat(leaveSem(D, "gd"))
                .as("a grant its waiter gave up on is given back")
                .isEqualTo(1L);
        assertThat(used()).isZero();
    }

    @Test
    void aLockOfAnotherKindUnderTheNameIsBusyNotOverwritten() throws Exception {
        grant(A, LEASE, "lock-grant");

        List<Object> reply = take(B, 1, "gb");

        assertThat(reply.get(0)).isEqualTo(0L);
        assertThat(sync.hexists(keys.lock(), "~n")).isFalse();
    }

    private List<Object> take(String owner, int wanted, String grant) throws Exception {
        return take(owner, wanted, grant, LEASE, 0, false);
    }

    private List<Object> take(String owner, int wanted, String grant, long leaseMs, long waitMs, boolean fair)
            throws Exception {
        return scripts.array(
                        LockScript.SEM_ACQUIRE, semKeys(), acquireArgs(owner, 3, wanted, grant, leaseMs, waitMs, fair))
                .get(5, TimeUnit.SECONDS);
    }

    private String[] semKeys() {
        return new String[] {keys.lock(), keys.fence(), keys.permits(), keys.waiters()};
    }

    private String[] acquireArgs(
            String owner, int permits, int wanted, String grant, long leaseMs, long waitMs, boolean fair) {
        return new String[] {
            owner,
            Long.toString(leaseMs),
            Long.toString(FENCE_TTL_MS),
            grant,
            Long.toString(waitMs),
            Integer.toString(permits),
            Integer.toString(wanted),
            fair ? "1" : "0",
            Long.toString(PLACE_MS),
            keys.channel(),
            "~next:all"
        };
    }

    private long releaseSem(String owner, String grant) throws Exception {
        return scripts.integer(
                        LockScript.SEM_RELEASE,
                        new String[] {keys.lock(), keys.note(owner), keys.waiters()},
                        owner,
                        grant,
                        keys.channel(),
                        "wake:all",
                        Long.toString(NOTE_TTL_MS))
                .get(5, TimeUnit.SECONDS);
    }

    private long renewSem(String owner, String grant, long leaseMs) throws Exception {
        return scripts.integer(LockScript.SEM_RENEW, new String[] {keys.lock()}, owner, grant, Long.toString(leaseMs))
                .get(5, TimeUnit.SECONDS);
    }

    private long leaveSem(String owner, String grant) throws Exception {
        return scripts.integer(
                        LockScript.SEM_LEAVE,
                        new String[] {keys.waiters(), keys.leaveNote(owner), keys.lock()},
                        owner,
                        keys.channel(),
                        "left",
                        grant,
                        Long.toString(NOTE_TTL_MS),
                        grant)
                .get(5, TimeUnit.SECONDS);
    }

    private long used() throws Exception {
        return scripts.integer(LockScript.SEM_USED, new String[] {keys.lock()}).get(5, TimeUnit.SECONDS);
    }
}
