package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * acquire.lua run directly against a real Redis: grant, re-entry, busy, expiry, fencing tokens, and
 * the same call sent twice (a reply lost, the command re-sent) counting once.
 */
class AcquireScriptTest extends ScriptTestSupport {

    AcquireScriptTest() {
        super("acquire");
    }

    @Test
    void freshGrantReturnsTokenAndCountOneAndRemembersItsGrantId() throws Exception {
        List<Object> reply = acquire(A, 10_000, 0, "g1");

        assertThat(reply).hasSize(3);
        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat((Long) reply.get(1)).isPositive();
        assertThat(reply.get(2)).isEqualTo(1L);
        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(A, "~token", "~req")
                .containsEntry(A, "1")
                .containsEntry("~token", reply.get(1).toString())
                .containsEntry("~req", "g1");
        assertThat(sync.pttl(keys.lock())).isBetween(1L, 10_000L);
        assertThat(sync.get(keys.fence())).isEqualTo(reply.get(1).toString());
        assertThat(sync.pttl(keys.fence())).isGreaterThan(Duration.ofHours(23).toMillis());
    }

    @Test
    void reentryWritesHeldPlusOneKeepsTokenAndResetsLease() throws Exception {
        List<Object> first = acquire(A, 1_000, 0, "g1");

        List<Object> second = acquire(A, 60_000, 1, "g1");
        List<Object> third = acquire(A, 60_000, 2, "g1");

        assertThat(second).containsExactly(1L, first.get(1), 2L);
        assertThat(third).containsExactly(1L, first.get(1), 3L);
        assertThat(sync.hget(keys.lock(), A)).isEqualTo("3");
        // the re-entry's lease replaced the first one's 1 s
        assertThat(sync.pttl(keys.lock())).isGreaterThan(30_000L);
        // re-entry does not consume a fencing token
        assertThat(sync.get(keys.fence())).isEqualTo(first.get(1).toString());
    }

    @Test
    void busyLockReturnsZeroWithRemainingTtlAndLeavesHolderUntouched() throws Exception {
        long token = grant(A, 10_000, "g1");

        List<Object> busy = acquire(B, 60_000, 0, "g2");

        assertThat(busy).hasSize(3);
        assertThat(busy.get(0)).isEqualTo(0L);
        assertThat((Long) busy.get(1)).isBetween(1L, 10_000L);
        assertThat(busy.get(2))
                .as("the fencing counter it saw, which a grant message for it must exceed")
                .isEqualTo(Long.parseLong(sync.get(keys.fence())));
        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(A, "~token", "~req")
                .containsEntry(A, "1")
                .containsEntry("~token", Long.toString(token))
                .containsEntry("~req", "g1");
        assertThat(sync.pttl(keys.lock())).isLessThanOrEqualTo(10_000L);
    }

    @Test
    void anotherOwnerPresentingTheHoldersGrantIdIsStillBusy() throws Exception {
        grant(A, 10_000, "g1");

        assertThat(acquire(B, 10_000, 1, "g1").get(0)).isEqualTo(0L);

        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(A, "~token", "~req")
                .containsEntry(A, "1");
    }

    @Test
    void expiredLockCanBeTakenByAnotherOwnerWithALargerToken() throws Exception {
        long first = grant(A, 50, "g1");
        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.lock()) == 0);

        List<Object> second = acquire(B, 10_000, 0, "g2");

        assertThat(second.get(0)).isEqualTo(1L);
        assertThat(second.get(2)).isEqualTo(1L);
        assertThat((Long) second.get(1)).isGreaterThan(first);
        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(B, "~token", "~req")
                .containsEntry("~req", "g2");
    }

    @Test
    void reentryAfterTheHoldExpiredIsAFreshGrantWithANewTokenAndCountOne() throws Exception {
        long first = grant(A, 50, "g1");
        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.lock()) == 0);

        List<Object> reply = acquire(A, 10_000, 1, "g1");

        // count 1 and a new token tell the client its hold was lost meanwhile
        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat((Long) reply.get(1)).isGreaterThan(first);
        assertThat(reply.get(2)).isEqualTo(1L);
        assertThat(sync.hget(keys.lock(), A)).isEqualTo("1");
    }

    @Test
    void fencingTokenStrictlyIncreasesAcrossGrants() throws Exception {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            tokens.add(grant(i % 2 == 0 ? A : B, 10_000, "g" + i));
            sync.del(keys.lock());
        }

        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token of grant %d", i).isGreaterThan(tokens.get(i - 1));
        }
    }

    @Test
    void tokenAfterFenceCounterWasDeletedIsStillLargerBecauseTheServerClockIsItsFloor() throws Exception {
        long first = grant(A, 10_000, "g1");
        sync.del(keys.lock(), keys.fence());

        long before = serverMicros();
        long second = grant(B, 10_000, "g2");
        long after = serverMicros();

        assertThat(second).isGreaterThan(first).isBetween(before, after);
        assertThat(fenceCounter()).isEqualTo(second);
    }

    @Test
    void tokenAfterFenceCounterExpiredIsStillLarger() throws Exception {
        long first = grant(A, 10_000, "g1");
        sync.del(keys.lock());
        sync.pexpire(keys.fence(), 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.fence()) == 0);

        long second = grant(A, 10_000, "g2");

        assertThat(second).isGreaterThan(first);
    }

    @Test
    void counterAheadOfTheServerClockDecidesTheNextToken() throws Exception {
        long ahead = serverMicros() + FAR_AHEAD_MICROS;
        sync.set(keys.fence(), Long.toString(ahead));

        assertThat(acquire(A, 10_000, 0, "g1")).containsExactly(1L, ahead + 1, 1L);
        assertThat(fenceCounter()).isEqualTo(ahead + 1);
    }

    @Test
    void counterBehindTheServerClockIsOvertakenByTheClock() throws Exception {
        sync.set(keys.fence(), "41"); // a counter that lags, as on a replica promoted after missing increments

        long before = serverMicros();
        long token = grant(A, 10_000, "g1");

        assertThat(token).isGreaterThanOrEqualTo(before);
        assertThat(fenceCounter()).isEqualTo(token);
    }

    // The same call sent twice: Lettuce re-sends a command whose reply was lost.

    @Test
    void newGrantSentTwiceIsGrantedOnceWithTheSameTokenAndCountOne() throws Exception {
        List<Object> first = acquire(A, 10_000, 0, "g1");
        long counter = fenceCounter();

        List<Object> again = acquire(A, 10_000, 0, "g1");

        assertThat(again).isEqualTo(first);
        assertThat(sync.hget(keys.lock(), A)).isEqualTo("1");
        assertThat(fenceCounter()).as("no token drawn for the repeat").isEqualTo(counter);
    }

    @Test
    void newGrantSentAgainAfterItsLeaseRanOutAndAnotherOwnerTookTheLockIsBusy() throws Exception {
        grant(A, 50, "g1");
        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.lock()) == 0);
        long token = grant(B, 10_000, "g2");

        assertThat(acquire(A, 50, 0, "g1").get(0)).isEqualTo(0L);

        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(B, "~token", "~req")
                .containsEntry(B, "1")
                .containsEntry("~token", Long.toString(token))
                .containsEntry("~req", "g2");
    }

    @Test
    void reentrySentTwiceCountsOnce() throws Exception {
        long token = grant(A, 10_000, "g1");

        List<Object> first = acquire(A, 10_000, 1, "g1");
        List<Object> again = acquire(A, 10_000, 1, "g1");

        assertThat(first).containsExactly(1L, token, 2L);
        assertThat(again).isEqualTo(first);
        assertThat(sync.hget(keys.lock(), A)).isEqualTo("2");
    }

    @Test
    void presentOwnerWithAnotherGrantIdGetsTheStaleGrantReplacedByAFreshLargerToken() throws Exception {
        long stale = grant(A, 10_000, "g1"); // its reply was lost and the request given up
        acquire(A, 10_000, 1, "g1"); // even re-entered: the client that comes back with g2 knows of none of it

        List<Object> fresh = acquire(A, 30_000, 0, "g2");

        assertThat(fresh.get(0)).isEqualTo(1L);
        assertThat((Long) fresh.get(1)).isGreaterThan(stale);
        assertThat(fresh.get(2)).isEqualTo(1L);
        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(A, "~token", "~req")
                .containsEntry(A, "1")
                .containsEntry("~token", fresh.get(1).toString())
                .containsEntry("~req", "g2");
        assertThat(sync.pttl(keys.lock())).isGreaterThan(10_000L);
    }

    @Test
    void releaseUnderTheReplacedGrantIdIsRefusedAndLeavesTheFreshGrant() throws Exception {
        grant(A, 10_000, "g1");
        long fresh = grant(A, 10_000, "g2");

        assertThat(release(A, "g1", 1, "m")).isEqualTo(-1L);

        assertThat(sync.hgetall(keys.lock()))
                .containsEntry(A, "1")
                .containsEntry("~token", Long.toString(fresh))
                .containsEntry("~req", "g2");
    }

    @Test
    void aNewGrantReservesATokenBlockSoTheNextGrantIsAboveEveryLocalHandOff() throws Exception {
        long token = (Long) acquireWaiting(A, 10_000, 0, "g1").get(1);

        assertThat(sync.get(keys.fence())).isEqualTo(Long.toString(token + TOKEN_BLOCK - 1));
        release(A, "g1", 1, "m");
        assertThat(grant(B, 10_000, "g2")).isGreaterThan(token + TOKEN_BLOCK - 1);
    }

    @Test
    void aBusyAttemptRecordsTheFirstOtherClientWaiting() throws Exception {
        grant(A, 10_000, "g1");

        assertThat(acquireWaiting(B, 10_000, 0, "g2").get(0)).isEqualTo(0L);
        assertThat(acquireWaiting(C, 10_000, 0, "g3").get(0)).isEqualTo(0L);

        assertThat(sync.hget(keys.lock(), "~w")).as("the first waiter's client").isEqualTo("client-b");
        assertThat(sync.hget(keys.lock(), A)).as("holder untouched").isEqualTo("1");
    }

    @Test
    void aCallerThatWaitsMarksTheLockAsWaitedForAndASingleAttemptMarksNothing() throws Exception {
        grant(A, 10_000, "g1");

        assertThat(acquire(B, 10_000, 0, "g2").get(0)).isEqualTo(0L);
        assertThat(sync.hgetall(keys.lock())).as("a single attempt").containsOnlyKeys(A, "~token", "~req");

        assertThat(acquire(C, 10_000, 0, "g3", 1, 1_000).get(0)).isEqualTo(0L);
        assertThat(sync.hgetall(keys.lock()))
                .as("a caller that waits, its client handing nothing on locally: recorded all the same")
                .containsOnlyKeys(A, "~token", "~req", "~s", "~w", "~wr")
                .containsEntry("~s", "client-c")
                .containsEntry("~w", "client-c");
        assertThat(sync.hget(keys.lock(), "~wr"))
                .as("with its request, which a release may grant the lock to")
                .startsWith(C + " g3 10000 1 ");

        assertThat(acquire("client-c:2", 10_000, 0, "g5", 1, 1_000).get(0)).isEqualTo(0L);
        assertThat(sync.hget(keys.lock(), "~s"))
                .as("another caller of the same client")
                .isEqualTo("client-c");

        assertThat(acquireWaiting(D, 10_000, 0, "g4").get(0)).isEqualTo(0L);
        assertThat(sync.hgetall(keys.lock()))
                .as("a caller of a second client that waits: the first client stays recorded")
                .containsOnlyKeys(A, "~token", "~req", "~s", "~w", "~wr")
                .containsEntry("~w", "client-c")
                .containsEntry("~s", "*");
        assertThat(sync.hget(keys.lock(), "~wr"))
                .as("its latest waiting request")
                .startsWith("client-c:2 g5 ");

        assertThat(acquire(C, 10_000, 0, "g6", 1, 1_000).get(0)).isEqualTo(0L);
        assertThat(sync.hget(keys.lock(), "~s"))
                .as("once two clients waited, it stays so for the life of the hash")
                .isEqualTo("*");
    }

    @Test
    void replacingAGrantItsOwnerNeverLearntOfKeepsTheMarksOfThoseWhoWait() throws Exception {
        long stale = grant(A, 10_000, "g1"); // its reply was lost and the request given up
        assertThat(acquireWaiting(B, 10_000, 0, "g2").get(0)).isEqualTo(0L);
        BlockingQueue<String> wakeups = probe.subscribe(keys.channel());

        List<Object> fresh = acquire(A, 30_000, 0, "g3");

        assertThat(fresh.get(0)).isEqualTo(1L);
        assertThat((Long) fresh.get(1)).isGreaterThan(stale);
        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(A, "~token", "~req", "~s", "~w", "~wr")
                .containsEntry("~req", "g3")
                .containsEntry("~w", "client-b");
        assertThat(release(A, "g3", 1, "wake")).isEqualTo(1L);
        assertThat(wakeups.poll(5, TimeUnit.SECONDS)).as("B is woken").isEqualTo("wake");
        assertThat(sync.hget(keys.lock(), "~res"))
                .as("and the lock is kept for it")
                .isEqualTo("client-b");
    }

    @Test
    void aReservedLockGoesOnlyToTheClientItIsReservedForWhichKeepsTheNextWaiter() throws Exception {
        grant(A, 10_000, "g1");
        acquireWaiting(B, 10_000, 0, "g2"); // client-b waits
        release(A, "g1", 1, "m");
        assertThat(sync.hgetall(keys.lock()))
                .as("reserved, and still marked as waited for")
                .containsOnlyKeys("~res", "~s")
                .containsEntry("~res", "client-b");
        assertThat(sync.pttl(keys.lock())).isBetween(1L, RESERVE_MS);

        assertThat(acquireWaiting("client-a:2", 10_000, 0, "g3").get(0))
                .as("the releasing client does not take it straight back")
                .isEqualTo(0L);
        assertThat(acquireWaiting(C, 10_000, 0, "g4").get(0)).isEqualTo(0L);
        List<Object> reserved = acquireWaiting("client-b:7", 10_000, 0, "g5");

        assertThat(reserved.get(0)).as("any owner of the reserved client").isEqualTo(1L);
        assertThat(sync.hgetall(keys.lock()))
                .containsEntry("client-b:7", "1")
                .containsEntry("~w", "client-a")
                .doesNotContainKey("~res");
    }

    @Test
    void aReservationNobodyTakesEndsWithItsShortTtl() throws Exception {
        grant(A, 10_000, "g1");
        acquireWaiting(B, 10_000, 0, "g2");
        release(A, "g1", 1, "m");

        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.lock()) == 0);
        assertThat(acquireWaiting(C, 10_000, 0, "g3").get(0)).isEqualTo(1L);
    }

    @Test
    void aReleaseWithOnlyItsOwnClientWaitingFreesTheLockAtOnce() throws Exception {
        grant(A, 10_000, "g1");
        acquireWaiting("client-a:2", 10_000, 0, "g2"); // another thread of the same client found it busy

        release(A, "g1", 1, "m");

        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void aSingleAttemptNeverRecordsItselfAsWaiting() throws Exception {
        grant(A, 10_000, "g1");

        assertThat(acquire(B, 10_000, 0, "g2").get(0)).isEqualTo(0L);
        release(A, "g1", 1, "m");

        assertThat(sync.exists(keys.lock()))
                .as("freed, not reserved for a caller that did not wait")
                .isZero();
    }

    @Test
    void aWaiterThatGivesUpIsForgottenAndHandsBackAReservationForItsClient() throws Exception {
        grant(A, 10_000, "g1");
        acquireWaiting(B, 10_000, 0, "g2");
        assertThat(leave(B, "g2", "m")).isEqualTo(1L);
        assertThat(sync.hexists(keys.lock(), "~w")).isFalse();
        assertThat(leave(B, "g2-later", "m")).as("nothing left to leave").isZero();

        acquireWaiting(C, 10_000, 0, "g3");
        BlockingQueue<String> wakeups = probe.subscribe(keys.channel());
        release(A, "g1", 1, "released");
        assertThat(wakeups.poll(2, TimeUnit.SECONDS)).isEqualTo("released");
        assertThat(leave(C, "g3", "handed back")).isEqualTo(2L);
        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(wakeups.poll(2, TimeUnit.SECONDS)).as("others are woken").isEqualTo("handed back");
    }

    /**
     * A give-up sent again after its reply was lost (Lettuce re-sends it on the next connection) runs after
     * another caller of the same client started waiting: it must take back neither that caller's record nor
     * the reservation a release then made for their client.
     */
    @Test
    void aGiveUpSentAgainLeavesALaterWaiterOfItsClientItsRecordAndReservation() throws Exception {
        String sameClient = "client-b:2";
        grant(A, 10_000, "g1");
        acquireWaiting(B, 10_000, 0, "g2");
        assertThat(leave(B, "g2", "m")).isEqualTo(1L);

        acquireWaiting(sameClient, 10_000, 0, "g3");
        assertThat(leave(B, "g2", "m")).as("the same give-up, sent again").isZero();
        assertThat(sync.hget(keys.lock(), "~w"))
                .as("the later waiter's client is still recorded")
                .isEqualTo("client-b");

        release(A, "g1", 1, "released");
        assertThat(sync.hget(keys.lock(), "~res"))
                .as("reserved for that client")
                .isEqualTo("client-b");
        assertThat(leave(B, "g2", "m")).as("the same give-up, sent once more").isZero();
        assertThat(sync.hget(keys.lock(), "~res"))
                .as("the reservation is not handed back")
                .isEqualTo("client-b");
        assertThat(acquireWaiting(sameClient, 10_000, 0, "g3").get(0))
                .as("the later waiter takes it")
                .isEqualTo(1L);
    }
}
