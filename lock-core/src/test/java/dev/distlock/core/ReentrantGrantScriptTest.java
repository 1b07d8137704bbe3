package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A reentrant lock's last release granting the lock to the waiting request another client recorded
 * ('~wr', acquire.lua), and carrying the grant in its wake-up message (release.lua); the waiter taking it
 * up with an attempt when it missed the message, giving it back when it gave up (leave.lua). Run against a
 * real Redis and, call by call, the in-process store of local mode.
 */
class ReentrantGrantScriptTest extends ScriptTestSupport {

    private static final long GRANT_CAP_MS = 2_000;

    ReentrantGrantScriptTest() {
        super("reentrant-grant");
    }

    @BeforeEach
    void grantsInMessages() {
        messageGrantMs = GRANT_CAP_MS;
    }

    /** B finds the lock busy and waits {@code waitMs} under grant id {@code grant}; returns the fencing counter it saw. */
    private long waits(String owner, String grant, long waitMs) throws Exception {
        List<Object> reply = acquire(owner, 30_000, 0, grant, TOKEN_BLOCK, waitMs);
        assertThat(reply.get(0)).as("busy: %s", reply).isEqualTo(0L);
        return (Long) reply.get(2);
    }

    @Test
    void aLastReleaseGrantsTheLockToTheRecordedWaiterOfAnotherClientAndPublishesTheGrant() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        long first = grant(A, 30_000, "g1");
        long seen = waits(B, "wb", 10_000);
        assertThat(seen).as("the fencing counter the busy attempt saw").isGreaterThanOrEqualTo(first);
        assertThat(sync.hget(keys.lock(), "~wr")).startsWith(B + " wb 30000 " + TOKEN_BLOCK + " ");

        assertThat(release(A, "g1", 1, "wake-from-a")).isEqualTo(1L);

        assertThat(sync.hget(keys.lock(), B)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "~req")).isEqualTo("wb");
        assertThat(sync.hexists(keys.lock(), A)).isFalse();
        assertThat(sync.hmget(keys.lock(), "~w", "~wr", "~res"))
                .allSatisfy(field -> assertThat(field.hasValue()).isFalse());
        long token = Long.parseLong(sync.hget(keys.lock(), "~token"));
        assertThat(token).isGreaterThan(seen);
        long ttl = sync.pttl(keys.lock());
        assertThat(ttl).as("cut to the cap: a waiter that died costs no more").isBetween(1L, GRANT_CAP_MS);
        assertThat(Long.parseLong(sync.get(keys.fence())))
                .as("the block the waiter asked for is reserved")
                .isEqualTo(token + TOKEN_BLOCK - 1);
        String message = messages.poll(5, TimeUnit.SECONDS);
        assertThat(message)
                .as("the grant id with the owner: grant ids are unique only within a client")
                .startsWith("~g " + token + " wb@" + B + " ")
                .endsWith(" wake-from-a");
        long carriedTtl = Long.parseLong(message.split(" ")[3]);
        assertThat(carriedTtl).isBetween(ttl, GRANT_CAP_MS);
    }

    /** A holds under g1, B waits 10 s under wb, and A's last release grants the lock to B; returns the token. */
    private long grantedToB() throws Exception {
        grant(A, 30_000, "g1");
        waits(B, "wb", 10_000);
        assertThat(release(A, "g1", 1, "m")).isEqualTo(1L);
        return Long.parseLong(sync.hget(keys.lock(), "~token"));
    }

    @Test
    void theGrantIsCutToWhatIsLeftOfTheWaitersWait() throws Exception {
        grant(A, 30_000, "g1");
        waits(B, "wb", 700);

        assertThat(release(A, "g1", 1, "m")).isEqualTo(1L);

        assertThat(sync.hget(keys.lock(), "~req")).isEqualTo("wb");
        assertThat(sync.pttl(keys.lock())).isBetween(1L, 700L);
    }

    @Test
    void aWaiterWhoseWaitHasEndedIsGrantedNothing() throws Exception {
        grant(A, 30_000, "g1");
        waits(B, "wb", 1);
        TimeUnit.MILLISECONDS.sleep(20); // its deadline (1 ms on) passes: a waiter that died without leaving

        assertThat(release(A, "g1", 1, "m")).isEqualTo(1L);

        assertThat(sync.hexists(keys.lock(), B)).isFalse();
        assertThat(sync.hget(keys.lock(), "~res"))
                .as("reserved for its client as before, for the reservation's short time")
                .isEqualTo("client-b");
    }

    @Test
    void theWaiterTakesUpTheGrantWithItsNextAttemptWhenItMissedTheMessage() throws Exception {
        long token = grantedToB();

        List<Object> reply = acquire(B, 30_000, 0, "wb", TOKEN_BLOCK, 10_000);

        assertThat(reply).containsExactly(1L, token, 1L);
        assertThat(sync.pttl(keys.lock()))
                .as("the attempt sets its whole lease")
                .isGreaterThan(GRANT_CAP_MS);
    }

    @Test
    void aReleaseSentAgainGrantsNothingMoreAndStillAnswersReleased() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        String token = Long.toString(grantedToB());
        assertThat(messages.poll(5, TimeUnit.SECONDS)).startsWith("~g ");

        assertThat(release(A, "g1", 1, "again")).isEqualTo(1L);

        assertThat(sync.hget(keys.lock(), "~token")).isEqualTo(token);
        assertThat(sync.hget(keys.lock(), B)).isEqualTo("1");
        sync.publish(keys.channel(), "flush"); // in order on one channel: a second grant would come before this
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
    }

    @Test
    void aWaiterThatGaveUpGivesAGrantMadeToItBackAtOnce() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        grantedToB();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).startsWith("~g ");

        assertThat(leave(B, "wb", "given-back")).isEqualTo(2L);

        assertThat(sync.exists(keys.lock())).as("free for the others at once").isZero();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("given-back");
        assertThat(leave(B, "wb", "again")).as("the same leave sent again").isZero();
    }

    @Test
    void aLeaveGivesBackOnlyItsOwnWaitsGrant() throws Exception {
        grantedToB();
        acquire(B, 30_000, 0, "wb", TOKEN_BLOCK, 10_000); // B took it up

        assertThat(leave(B, "w-earlier", "m")).isZero();

        assertThat(sync.hget(keys.lock(), B)).isEqualTo("1");
    }

    @Test
    void theClientsLatestWaitingRequestIsGrantedAndAnEarlierOnesLeaveKeepsItsRecord() throws Exception {
        String b2 = "client-b:2";
        grant(A, 30_000, "g1");
        waits(B, "wb", 10_000);
        waits(b2, "wb2", 10_000); // the next caller of B's client to try, after B stopped (its leave comes late)

        assertThat(leave(B, "wb", "m"))
                .as("another request of its client is recorded now")
                .isZero();
        assertThat(release(A, "g1", 1, "m")).isEqualTo(1L);

        assertThat(sync.hget(keys.lock(), b2)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "~req")).isEqualTo("wb2");
    }

    @Test
    void aReentryThatFindsTheLockBusyIsNotRecordedForAGrant() throws Exception {
        grant(A, 30_000, "g1");
        acquire(B, 30_000, 1, "old-hold-of-b", TOKEN_BLOCK, 10_000); // its hold was lost: busy

        assertThat(sync.hget(keys.lock(), "~w")).isEqualTo("client-b");
        assertThat(sync.hexists(keys.lock(), "~wr")).isFalse();
    }

    @Test
    void aReleaseByTheWaitersOwnClientGrantsNothingToIt() throws Exception {
        String a2 = "client-a:2";
        grant(A, 30_000, "g1");
        waits(a2, "wa2", 10_000);

        assertThat(release(A, "g1", 1, "m")).isEqualTo(1L);

        assertThat(sync.exists(keys.lock()))
                .as("its own client hands on in-process instead")
                .isZero();
    }

    @Test
    void withoutMessageGrantsTheReleaseReservesAsBefore() throws Exception {
        messageGrantMs = 0;
        grant(A, 30_000, "g1");
        waits(B, "wb", 10_000);

        assertThat(release(A, "g1", 1, "m")).isEqualTo(1L);

        assertThat(sync.hexists(keys.lock(), B)).isFalse();
        assertThat(sync.hget(keys.lock(), "~res")).isEqualTo("client-b");
    }

    @Test
    void aHoldAtLeastGrantsNothing() throws Exception {
        grant(A, 30_000, "g1");
        waits(B, "wb", 10_000);

        assertThat(release(A, "g1", 1, "m", NOTE_TTL_MS, 5_000)).isEqualTo(1L);

        assertThat(sync.hexists(keys.lock(), B)).isFalse();
        assertThat(sync.hget(keys.lock(), "~wr")).as("still waiting").startsWith(B + " wb ");
    }
}
