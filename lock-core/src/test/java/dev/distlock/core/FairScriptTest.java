package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.redis.WakeupHub;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * fair-acquire.lua run directly against a real Redis: a free lock granted with a token, re-entry past the
 * queue, a busy lock queueing the caller once with a deadline that bounds its sleep, arrival order, dead
 * heads dropped, a stale grant replaced by a fresh, larger token, and tokens shared with plain grants.
 * Releases, hand-offs and leaves: {@link FairReleaseScriptTest}; every call sent twice:
 * {@link FairRepeatedCallScriptTest}.
 */
class FairScriptTest extends FairScriptSupport {

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

        long fence = Long.parseLong(sync.get(keys.fence())); // A's token: a later grant's is larger
        assertThat(first).containsExactly(0L, RECHECK_MS, fence);
        assertThat(second).containsExactly(0L, RECHECK_MS, fence);
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
}
