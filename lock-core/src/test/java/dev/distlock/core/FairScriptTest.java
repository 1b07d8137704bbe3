package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.redis.WakeupHub;
import dev.distlock.core.internal.redis.script.LockScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * fair-acquire.lua, fair-release.lua and fair-leave.lua run directly against a real Redis: arrival
 * order, queue deadlines, directed wake-ups, re-entry, grant checks, and every call sent twice.
 */
class FairScriptTest extends ScriptTestSupport {

    FairScriptTest() {
        super("fair-script");
    }

    private static final long RECHECK_MS = 1_000;
    private static final long MARGIN_MS = 3_000;
    private static final long WAIT_MS = 60_000;

    @Test
    void freeLockWithoutWaitersIsGrantedWithTokenAndLeavesNoQueue() throws Exception {
        List<Object> reply = fair(A, 10_000, WAIT_MS);

        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat((Long) reply.get(1)).isPositive();
        assertThat(reply.get(2)).isEqualTo(1L);
        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(A, "~token", "~req")
                .containsEntry(A, "1")
                .containsEntry("~token", reply.get(1).toString())
                .containsEntry("~req", grantOf(A));
        assertThat(sync.pttl(keys.lock())).isBetween(1L, 10_000L);
        assertThat(sync.get(keys.fence())).isEqualTo(reply.get(1).toString());
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
    }

    @Test
    void reentryByTheHolderSucceedsPastQueuedWaitersAndKeepsTheToken() throws Exception {
        List<Object> first = fair(A, 10_000, WAIT_MS);
        fair(B, 10_000, WAIT_MS);

        List<Object> again = fair(A, 10_000, 1, grantOf(A), WAIT_MS);

        assertThat(again).containsExactly(1L, first.get(1), 2L);
        assertThat(sync.get(keys.fence())).isEqualTo(first.get(1).toString());
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(B);
    }

    @Test
    void busyLockQueuesTheCallerOnceWithADeadlineAndBoundsItsSleep() throws Exception {
        fair(A, 60_000, WAIT_MS);

        List<Object> first = fair(B, 60_000, WAIT_MS);
        double firstDeadline = sync.zscore(keys.timeouts(), B);
        await(5); // server time moves on, so the refreshed deadline is later
        List<Object> second = fair(B, 60_000, WAIT_MS);

        assertThat(first).containsExactly(0L, RECHECK_MS, 0L);
        assertThat(second).containsExactly(0L, RECHECK_MS, 0L);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(B);
        long now = serverMillis();
        assertThat(sync.zscore(keys.timeouts(), B))
                .isGreaterThan(firstDeadline)
                .isBetween((double) now + MARGIN_MS, (double) now + RECHECK_MS + MARGIN_MS);
        // queue and deadlines expire together once no waiter can still be alive
        assertThat(sync.pttl(keys.queue())).isBetween(1L, RECHECK_MS + MARGIN_MS);
        assertThat(sync.pttl(keys.timeouts())).isBetween(1L, RECHECK_MS + MARGIN_MS);
    }

    @Test
    void shortLeaseOfTheHolderBoundsTheWaitersSleep() throws Exception {
        fair(A, 300, WAIT_MS);

        List<Object> busy = fair(B, 60_000, WAIT_MS);

        assertThat((Long) busy.get(1)).isBetween(0L, 300L);
    }

    @Test
    void shortWaitShortensTheDeadline() throws Exception {
        fair(A, 60_000, WAIT_MS);

        fair(B, 60_000, 100);

        assertThat(sync.zscore(keys.timeouts(), B)).isLessThanOrEqualTo((double) serverMillis() + 100 + MARGIN_MS);
    }

    @Test
    void singleAttemptOnABusyLockIsNotQueued() throws Exception {
        fair(A, 60_000, WAIT_MS);

        List<Object> busy = fair(B, 60_000, 0);

        assertThat(busy.get(0)).isEqualTo(0L);
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
    }

    @Test
    void freeLockGoesOnlyToTheHeadOfTheQueueInArrivalOrder() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        fair(D, 60_000, 0);
        fairRelease(A);

        assertThat(fair(C, 60_000, WAIT_MS).get(0)).as("C is behind B").isEqualTo(0L);
        assertThat(fair(D, 60_000, 0).get(0)).as("a newcomer does not barge in").isEqualTo(0L);
        assertThat(fair(B, 60_000, WAIT_MS).get(0)).isEqualTo(1L);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(C);
        fairRelease(B);
        assertThat(fair(C, 60_000, WAIT_MS).get(0)).isEqualTo(1L);
        fairRelease(C);
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
    }

    @Test
    void headWhoseDeadlinePassedIsDroppedAndTheNextWaiterIsGranted() throws Exception {
        fair(A, 100, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        sync.zadd(keys.timeouts(), serverMillis() - 1, B); // B crashed: its deadline passed
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.lock()) == 0);

        List<Object> reply = fair(C, 60_000, WAIT_MS);

        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
    }

    @Test
    void droppingADeadHeadGrantsTheNewHeadAndWakesItWhenTheLockIsFree() throws Exception {
        fair(A, 100, WAIT_MS); // A's lease runs out: the lock frees without a release
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        fair(D, 60_000, WAIT_MS);
        sync.zadd(keys.timeouts(), serverMillis() - 1, B);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.lock()) == 0);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);

        List<Object> reply = fair(D, 60_000, WAIT_MS);

        assertThat(reply.get(0)).as("D is behind C").isEqualTo(0L);
        assertThat(toC.poll(5, TimeUnit.SECONDS)).endsWith(WakeupHub.DIRECTED);
        assertGrantedTo(C);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(D);
        assertThat(sync.zrange(keys.timeouts(), 0, -1)).containsExactly(D);
        assertThat(fair(C, 60_000, WAIT_MS).get(0)).as("C takes its grant up").isEqualTo(1L);
    }

    @Test
    void releasePublishesOnlyToTheNextWaitersOwnChannel() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        BlockingQueue<String> toB = probe.subscribe(keys.waiterChannelPrefix() + B);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);
        BlockingQueue<String> shared = probe.subscribe(keys.channel());

        assertThat(fairRelease(A)).isEqualTo(1L);

        assertThat(toB.poll(5, TimeUnit.SECONDS)).isEqualTo("client-a" + WakeupHub.DIRECTED);
        // PUBLISH is delivered in order on one connection: a ping on the shared channel flushes anything earlier
        sync.publish(keys.channel(), "flush");
        assertThat(shared.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
        assertThat(toC).isEmpty();
        assertThat(toB).isEmpty();
    }

    @Test
    void releaseSkipsDeadWaitersAndWakesTheFirstLiveOne() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        sync.zadd(keys.timeouts(), serverMillis() - 1, B);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);

        fairRelease(A);

        assertThat(toC.poll(5, TimeUnit.SECONDS)).isNotNull();
        assertGrantedTo(C);
        assertThat(sync.exists(keys.queue(), keys.timeouts(), keys.waiting())).isZero();
    }

    @Test
    void lastReleaseGrantsTheNextWaiterUnderItsOwnGrantIdForNoLongerThanItsPlaceInTheQueue() throws Exception {
        long holders = (Long) fair(A, 60_000, WAIT_MS).get(1);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        double deadline = sync.zscore(keys.timeouts(), B);
        long before = serverMillis();

        assertThat(fairRelease(A)).isOne();

        assertGrantedTo(B);
        long token = Long.parseLong(sync.hget(keys.lock(), "~token"));
        assertThat(token).isGreaterThan(holders);
        assertThat(fenceCounter()).isEqualTo(token);
        // B has not confirmed yet: were it dead, the lock would free when its place in the queue would have
        assertThat((double) sync.pttl(keys.lock())).isBetween(1.0, deadline - before);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(C);
        assertThat(sync.hkeys(keys.waiting())).containsExactly(C);
        assertThat(fair(C, 60_000, WAIT_MS).get(0)).as("C still waits").isEqualTo(0L);

        List<Object> taken = fair(B, 60_000, WAIT_MS);

        assertThat(taken).as("B takes the grant up").containsExactly(1L, token, 1L);
        assertThat(sync.pttl(keys.lock())).as("with its whole lease").isGreaterThan(50_000L);
        assertThat(fairRelease(B)).isOne();
        assertGrantedTo(C);
    }

    @Test
    void aGrantToAWaiterOfTheReleasingClientComesBackInTheReplyWithTheWholeLeaseAndNoMessage() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 45_000, WAIT_MS);
        BlockingQueue<String> toB = probe.subscribe(keys.waiterChannelPrefix() + B);
        BlockingQueue<String> shared = probe.subscribe(keys.channel());

        List<Object> reply = fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:");

        assertGrantedTo(B);
        String token = sync.hget(keys.lock(), "~token");
        assertThat(reply).containsExactly(1L, B, Long.parseLong(token), grantOf(B), 45_000L);
        assertThat(sync.pttl(keys.lock())).isBetween(40_000L, 45_000L);
        sync.publish(keys.channel(), "flush");
        assertThat(shared.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
        assertThat(toB).as("the releasing client hands it over itself").isEmpty();
        assertThat(fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:"))
                .as("sent again while the grant stands: the same grant, marked as made by an earlier sending")
                .isEqualTo(sentAgain(reply));
        assertThat(sync.hget(keys.lock(), "~token")).as("nothing granted twice").isEqualTo(token);
        assertThat(sync.get(keys.fence())).isEqualTo(token);
        assertThat(toB).isEmpty();
        assertThat(fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:", 0, "", "call-2"))
                .as("another call for the same grant (a second give-back, a retry): the grant is not handed twice")
                .containsExactly(1L);
        assertThat(fairRelease(B)).isOne();
        assertThat(fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:"))
                .as("sent again once B's hold ended: released, nothing left to hand over")
                .containsExactly(1L);
        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void aRepeatedReleaseHandsNothingOnceTheLocalGrantWasGivenBackAndTheNextWaiterHoldsIt() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        List<Object> reply = fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:");
        assertThat(reply).hasSize(5).contains(B);
        assertThat(fairLeave(B)).as("B stopped waiting: its grant goes to C").isOne();
        assertGrantedTo(C);

        assertThat(fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:")).containsExactly(1L);

        assertGrantedTo(C);
    }

    @Test
    void aLocalGrantNamesTheSameClientsWaitersQueuedRightBehindItAndReservesATokenForEach() throws Exception {
        String b2 = "client-b:2";
        String b3 = "client-b:3";
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(b2, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        fair(b3, 60_000, WAIT_MS);

        List<Object> reply = fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:", 16, "");

        long token = Long.parseLong(sync.hget(keys.lock(), "~token"));
        assertThat(reply)
                .as("the line stops at the first waiter of another client")
                .containsExactly(1L, B, token, grantOf(B), 60_000L, b2, grantOf(b2));
        assertThat(sync.get(keys.fence())).as("a token reserved for b2").isEqualTo(Long.toString(token + 1));
        assertThat(sync.hget(keys.lock(), "~c"))
                .as("the grant may pass down a line")
                .isEqualTo("1");
        assertThat(sync.lrange(keys.queue(), 0, -1))
                .as("the line stays queued until it is served")
                .containsExactly(b2, C, b3);
        assertThat(fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:", 1, ""))
                .as("sent again: the first run's grant, line included")
                .isEqualTo(sentAgain(reply));
        assertThat(sync.get(keys.fence())).isEqualTo(Long.toString(token + 1));
    }

    @Test
    void aLineIsCutAtCohortMax() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair("client-b:2", 60_000, WAIT_MS);
        fair("client-b:3", 60_000, WAIT_MS);

        List<Object> reply = fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:", 1, "");

        assertThat(reply).hasSize(7).endsWith("client-b:2", grantOf("client-b:2"));
        List<Object> alone =
                fairRelease(B, grantOf(B), 1, NOTE_TTL_MS, "client-b:", 0, "client-b:2 " + grantOf("client-b:2"));
        assertThat(alone).as("no line with cohortMax 0").hasSize(5).contains("client-b:3");
        assertThat(sync.hexists(keys.lock(), "~c")).as("no line, no mark").isFalse();
    }

    @Test
    void aReleaseNamingTheWaitersItServedDropsThemFromTheQueueUnlessTheyQueuedAgain() throws Exception {
        String b2 = "client-b:2";
        String b3 = "client-b:3";
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(b2, 60_000, WAIT_MS);
        fair(b3, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:", 16, ""); // B holds; line b2, b3
        // b2 held it in-process and queued again under a new grant id; b3 held it after b2.
        assertThat(fair(b2, 60_000, 0, "g:b2-again", WAIT_MS).get(0)).isEqualTo(0L);
        assertThat(sync.lrange(keys.queue(), 0, -1))
                .as("b2's old place is not its new wait's: it queues at the back")
                .containsExactly(b3, C, b2);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);

        List<Object> reply = fairRelease(
                B, grantOf(B), 1, NOTE_TTL_MS, "client-b:", 16, b2 + " " + grantOf(b2) + " " + b3 + " " + grantOf(b3));

        assertThat(reply).as("granted to C, another client's waiter").containsExactly(1L);
        assertThat(sync.hget(keys.lock(), C)).isEqualTo("1");
        assertThat(sync.hexists(keys.lock(), "~c")).isFalse();
        assertThat(sync.lrange(keys.queue(), 0, -1))
                .as("b2's new wait keeps its place")
                .containsExactly(b2);
        assertThat(sync.hget(keys.waiting(), b2)).startsWith("g:b2-again ");
        assertThat(toC.poll(5, TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void aNewRequestOfTheFirstHoldersOwnerWaitsWhileItsGrantPassesDownALine() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair("client-b:2", 60_000, WAIT_MS);
        fairRelease(A, grantOf(A), 1, NOTE_TTL_MS, "client-b:", 16, ""); // B's grant, passed on to b2 in-process

        List<Object> again = fair(B, 60_000, 0, "g:b-again", WAIT_MS);

        assertThat(again.get(0))
                .as("b2 may hold it now: not a grant nobody learnt of")
                .isEqualTo(0L);
        assertThat(sync.hget(keys.lock(), "~req")).isEqualTo(grantOf(B));
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly("client-b:2", B);
    }

    @Test
    void aLeaveOfAnEarlierWaitLandingLateLeavesTheOwnersNewPlaceAlone() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, 0, "b-first", WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        // B gave up and its leave went unanswered (retried in the background); B waits again, at the back
        fair(B, 60_000, 0, "b-second", WAIT_MS);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(C, B);

        assertThat(fairLeave(B, "b-first", "b-first"))
                .as("the earlier wait's leave, landing now")
                .isZero();

        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(C, B);
        assertThat(sync.hget(keys.waiting(), B)).startsWith("b-second ");
        assertThat(sync.zscore(keys.timeouts(), B)).isNotNull();
        assertThat(fairLeave(B, "b-second", "b-second"))
                .as("its own wait's leave")
                .isOne();
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(C);
    }

    @Test
    void aWaiterLeavingAfterItWasGrantedGivesTheGrantBackToTheNextWaiter() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        fairRelease(A);
        assertGrantedTo(B);

        assertThat(fairLeave(B, "g-earlier-wait"))
                .as("another grant id: not its grant")
                .isZero();
        assertGrantedTo(B);
        assertThat(fairLeave(B)).isOne();

        assertGrantedTo(C);
        assertThat(fairLeave(B)).as("sent again").isZero();
        assertGrantedTo(C);
        assertThat(sync.exists(keys.queue(), keys.timeouts(), keys.waiting())).isZero();
    }

    @Test
    void releaseCountsDownReentryAndRefusesOtherOwners() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(A, 60_000, 1, grantOf(A), WAIT_MS);

        assertThat(fairRelease(B)).isEqualTo(-1L);
        assertThat(fairRelease(A, "g-other", 2))
                .as("another grant of the holder")
                .isEqualTo(-1L);
        assertThat(fairRelease(A, grantOf(A), 2)).isEqualTo(0L);
        assertThat(sync.hget(keys.lock(), A)).isEqualTo("1");
        assertThat(fairRelease(A)).isEqualTo(1L);
        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(fairRelease(A, "g-other", 1)).isEqualTo(-1L);
    }

    @Test
    void waiterThatGivesUpLeavesQueueAndTimeouts() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);

        assertThat(fairLeave(C)).isEqualTo(1L);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(B);
        assertThat(sync.zrange(keys.timeouts(), 0, -1)).containsExactly(B);
        assertThat(fairLeave(B)).isEqualTo(1L);
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
        assertThat(fairLeave(B)).as("not queued any more").isZero();
        assertThat(sync.hget(keys.lock(), A)).as("the holder is untouched").isEqualTo("1");
    }

    @Test
    void headThatGivesUpOnAFreeLockWakesTheNextWaiter() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);
        fairRelease(A); // wakes B, which then gives up instead of taking the lock

        fairLeave(B);

        assertThat(toC.poll(5, TimeUnit.SECONDS)).isEqualTo("client-b:1" + WakeupHub.DIRECTED);
        assertThat(fair(C, 60_000, WAIT_MS).get(0)).isEqualTo(1L);
    }

    @Test
    void fairAndPlainGrantsShareOneStrictlyIncreasingFencingCounter() throws Exception {
        long plain = grant(A, 10_000, "g-plain");
        sync.del(keys.lock());
        long fair = (Long) fair(B, 10_000, WAIT_MS).get(1);
        sync.set(keys.fence(), Long.toString(fair + FAR_AHEAD_MICROS)); // ahead of the clock: the counter decides
        sync.del(keys.lock());
        long fromCounter = grant(C, 10_000, "g-plain-2");
        sync.del(keys.lock(), keys.fence());
        long before = serverMicros();
        long afterCounterLost = (Long) fair(D, 10_000, WAIT_MS).get(1);

        assertThat(fair).isGreaterThan(plain);
        assertThat(fromCounter)
                .as("the plain grant drew from the counter the fair one set")
                .isEqualTo(fair + FAR_AHEAD_MICROS + 1);
        assertThat(afterCounterLost)
                .as("the server clock in micros is the floor")
                .isGreaterThanOrEqualTo(before);
        assertThat(sync.pttl(keys.fence())).isGreaterThan(Duration.ofHours(23).toMillis());
    }

    // The same call sent twice: Lettuce re-sends a command whose reply was lost.

    @Test
    void grantSentTwiceIsGrantedOnceWithTheSameToken() throws Exception {
        List<Object> first = fair(A, 10_000, WAIT_MS);
        long counter = fenceCounter();

        assertThat(fair(A, 10_000, WAIT_MS)).isEqualTo(first);

        assertThat(sync.hget(keys.lock(), A)).isEqualTo("1");
        assertThat(fenceCounter()).isEqualTo(counter);
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
    }

    @Test
    void grantOfTheHeadSentTwiceTakesItOffTheQueueOnlyOnce() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        fairRelease(A);
        List<Object> first = fair(B, 60_000, WAIT_MS);

        List<Object> again = fair(B, 60_000, WAIT_MS);

        assertThat(first.get(0)).isEqualTo(1L);
        assertThat(again).isEqualTo(first);
        assertThat(sync.hget(keys.lock(), B)).isEqualTo("1");
        assertThat(sync.lrange(keys.queue(), 0, -1)).as("C keeps its place").containsExactly(C);
        assertThat(sync.zrange(keys.timeouts(), 0, -1)).containsExactly(C);
    }

    @Test
    void reentrySentTwiceCountsOnce() throws Exception {
        long token = (Long) fair(A, 60_000, WAIT_MS).get(1);

        assertThat(fair(A, 60_000, 1, grantOf(A), WAIT_MS)).containsExactly(1L, token, 2L);
        assertThat(fair(A, 60_000, 1, grantOf(A), WAIT_MS)).containsExactly(1L, token, 2L);

        assertThat(sync.hget(keys.lock(), A)).isEqualTo("2");
    }

    @Test
    void partialReleaseSentTwiceCountsDownOnce() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(A, 60_000, 1, grantOf(A), WAIT_MS);
        fair(A, 60_000, 2, grantOf(A), WAIT_MS);

        assertThat(fairRelease(A, grantOf(A), 3)).isZero();
        assertThat(fairRelease(A, grantOf(A), 3)).isZero();

        assertThat(sync.hget(keys.lock(), A)).isEqualTo("2");
    }

    @Test
    void lastReleaseSentTwiceAnswersOneAgainAndWakesTheNextWaiterOnce() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        BlockingQueue<String> toB = probe.subscribe(keys.waiterChannelPrefix() + B);
        BlockingQueue<String> shared = probe.subscribe(keys.channel());
        assertThat(fairRelease(A)).isOne();

        assertThat(fairRelease(A)).isOne();
        long token = Long.parseLong(sync.hget(keys.lock(), "~token"));
        long counter = fenceCounter();

        assertThat(fairRelease(A)).isOne();

        assertGrantedTo(B);
        assertThat(sync.hget(keys.lock(), "~token")).as("granted once").isEqualTo(Long.toString(token));
        assertThat(fenceCounter()).isEqualTo(counter);
        assertThat(sync.get(noteKey(A))).isEqualTo(grantOf(A));
        assertThat(sync.exists(keys.queue(), keys.timeouts(), keys.waiting())).isZero();
        assertThat(toB.poll(5, TimeUnit.SECONDS)).isNotNull();
        sync.publish(keys.channel(), "flush"); // delivered in order after any second wake-up
        assertThat(shared.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
        assertThat(toB).isEmpty();
    }

    @Test
    void repeatOfALastReleaseAfterTheNoteExpiredGetsMinusOne() throws Exception {
        fair(A, 60_000, WAIT_MS);
        assertThat(fairRelease(A, grantOf(A), 1, 100)).isOne();
        assertThat(fairRelease(A, grantOf(A), 1)).as("while the note lives").isOne();

        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(noteKey(A)) == 0);

        assertThat(fairRelease(A, grantOf(A), 1)).isEqualTo(-1L);
    }

    @Test
    void leaveSentTwiceChangesNothingTheSecondTime() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        assertThat(fairLeave(C)).isOne();

        assertThat(fairLeave(C)).as("no longer queued").isZero();

        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(B);
        assertThat(sync.zrange(keys.timeouts(), 0, -1)).containsExactly(B);
        assertThat(sync.hget(keys.lock(), A)).isEqualTo("1");
    }

    @Test
    void leaveOfTheHeadSentTwiceWakesTheNextWaiterOnce() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        fair(D, 60_000, WAIT_MS);
        fairRelease(A);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);
        BlockingQueue<String> toD = probe.subscribe(keys.waiterChannelPrefix() + D);
        BlockingQueue<String> shared = probe.subscribe(keys.channel());
        assertThat(fairLeave(B)).isOne();

        assertThat(fairLeave(B)).isZero();

        assertThat(toC.poll(5, TimeUnit.SECONDS)).isNotNull();
        sync.publish(keys.channel(), "flush");
        assertThat(shared.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
        assertThat(toC).isEmpty();
        assertThat(toD).isEmpty();
        assertGrantedTo(C);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(D);
    }

    @Test
    void presentOwnerWithAnotherGrantIdGetsTheStaleGrantReplacedByAFreshLargerToken() throws Exception {
        long stale = (Long) fair(A, 10_000, 0, "g1", WAIT_MS).get(1); // its reply was lost and the request given up

        List<Object> fresh = fair(A, 30_000, 0, "g2", WAIT_MS);

        assertThat(fresh.get(0)).isEqualTo(1L);
        assertThat((Long) fresh.get(1)).isGreaterThan(stale);
        assertThat(fresh.get(2)).isEqualTo(1L);
        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(A, "~token", "~req")
                .containsEntry(A, "1")
                .containsEntry("~token", fresh.get(1).toString())
                .containsEntry("~req", "g2");
        assertThat(fairRelease(A, "g1", 1))
                .as("the replaced grant cannot release")
                .isEqualTo(-1L);
    }

    /**
     * Replacing a stale grant frees the lock. With a live waiter ahead of the owner the owner queues
     * behind it: as when a dead head is dropped, the new head's turn came without a release, so it is
     * granted the lock and told, or it would sleep a whole recheck period.
     */
    @Test
    void replacingAStaleGrantWhileOthersWaitWakesTheHeadOfTheQueue() throws Exception {
        fair(A, 60_000, 0, "g1", WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        BlockingQueue<String> toB = probe.subscribe(keys.waiterChannelPrefix() + B);

        List<Object> reply = fair(A, 60_000, 0, "g2", WAIT_MS);

        assertThat(reply.get(0)).as("B was first in line").isEqualTo(0L);
        assertGrantedTo(B);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(A);
        assertThat(toB.poll(5, TimeUnit.SECONDS))
                .as("wake-up of the head, whose turn it now is")
                .isNotNull();
    }

    @Test
    void tokensStayLargerAfterTheFenceCounterWasDeleted() throws Exception {
        long first = (Long) fair(A, 10_000, WAIT_MS).get(1);
        fairRelease(A);
        sync.del(keys.fence());

        long before = serverMicros();
        long second = (Long) fair(B, 10_000, WAIT_MS).get(1);

        assertThat(second).isGreaterThan(first).isGreaterThanOrEqualTo(before);
    }

    /** The grant id an owner's attempts use in these tests: a waiter keeps one id across its attempts. */
    private static String grantOf(String owner) {
        return "g:" + owner;
    }

    /** A new hold's attempt under the owner's usual grant id. */
    private List<Object> fair(String owner, long leaseMs, long waitMs) throws Exception {
        return fair(owner, leaseMs, 0, grantOf(owner), waitMs);
    }

    private List<Object> fair(String owner, long leaseMs, int held, String grant, long waitMs) throws Exception {
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
    private long fairRelease(String owner) throws Exception {
        return fairRelease(owner, grantOf(owner), 1);
    }

    private long fairRelease(String owner, String grant, int held) throws Exception {
        return fairRelease(owner, grant, held, NOTE_TTL_MS);
    }

    private long fairRelease(String owner, String grant, int held, long noteTtlMs) throws Exception {
        return (Long) fairRelease(owner, grant, held, noteTtlMs, "").get(0);
    }

    /** A release by the client whose owner ids start with {@code localOwners}; the whole reply. */
    private List<Object> fairRelease(String owner, String grant, int held, long noteTtlMs, String localOwners)
            throws Exception {
        return fairRelease(owner, grant, held, noteTtlMs, localOwners, 0, "");
    }

    /**
     * A release by the client whose owner ids start with {@code localOwners}, which may pass a grant down
     * {@code cohortMax} of its waiters and passed this one down {@code served}; the whole reply.
     */
    private List<Object> fairRelease(
            String owner, String grant, int held, long noteTtlMs, String localOwners, int cohortMax, String served)
            throws Exception {
        return fairRelease(owner, grant, held, noteTtlMs, localOwners, cohortMax, served, "call-1");
    }

    /** The same, as release call {@code callId}: a command sent again has the same id, another call another. */
    private List<Object> fairRelease(
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
    private static List<Object> sentAgain(List<Object> first) {
        List<Object> again = new java.util.ArrayList<>(first);
        again.set(0, 2L);
        return again;
    }

    private long fairLeave(String owner) throws Exception {
        return fairLeave(owner, grantOf(owner));
    }

    private long fairLeave(String owner, String grant) throws Exception {
        return fairLeave(owner, grant, grant);
    }

    /** A leave of the wait whose attempts carried {@code waitId}, giving back a grant made under {@code grant}. */
    private long fairLeave(String owner, String waitId, String grant) throws Exception {
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
    private void assertGrantedTo(String owner) {
        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(owner, "~token", "~req")
                .containsEntry(owner, "1")
                .containsEntry("~req", grantOf(owner));
    }

    /** Lets at least {@code ms} of server time pass. */
    private void await(long ms) {
        long until = serverMillis() + ms;
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(1))
                .until(() -> serverMillis() > until);
    }
}
