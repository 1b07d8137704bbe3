package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.redis.WakeupHub;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * fair-release.lua and fair-leave.lua run directly against a real Redis: a release wakes only the next live
 * waiter, on its own channel, and grants it the lock under its own grant id; the releasing client's own
 * waiters are handed the grant down a line (cut at cohortMax) in the reply, with a token reserved each;
 * re-entry counts down, other owners are refused, and a waiter that gives up leaves the queue, waking the
 * next one when it was the head. Acquiring and queueing: {@link FairScriptTest}; every call sent twice:
 * {@link FairRepeatedCallScriptTest}.
 */
class FairReleaseScriptTest extends FairScriptSupport {

    @Test
    void releasePublishesOnlyToTheNextWaitersOwnChannel() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        BlockingQueue<String> toB = probe.subscribe(keys.waiterChannelPrefix() + B);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);
        BlockingQueue<String> shared = probe.subscribe(keys.channel());

        assertThat(fairRelease(A)).isEqualTo(1L);

        // the grant rides in the wake-up: its token, B's grant id and TTL, then the plain message
        String[] message = toB.poll(5, TimeUnit.SECONDS).split(" ");
        assertThat(message[0]).isEqualTo("~g");
        assertThat(message[1]).isEqualTo(sync.hget(keys.lock(), "~token"));
        assertThat(message[2]).isEqualTo(sync.hget(keys.lock(), "~req"));
        assertThat(Long.parseLong(message[3])).isBetween(sync.pttl(keys.lock()), 60_000L);
        assertThat(message[4]).isEqualTo("client-a" + WakeupHub.DIRECTED);
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

        assertThat(toC.poll(5, TimeUnit.SECONDS)).startsWith("~g ").endsWith(" client-b:1" + WakeupHub.DIRECTED);
        assertThat(fair(C, 60_000, WAIT_MS).get(0)).isEqualTo(1L);
    }
}
