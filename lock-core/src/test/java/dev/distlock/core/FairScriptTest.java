package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.pubsub.WakeupHub;
import dev.distlock.core.script.LockScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** fair-acquire.lua, fair-release.lua and fair-leave.lua run directly against a real Redis. */
class FairScriptTest extends ScriptTestSupport {

    FairScriptTest() {
        super("fair-script");
    }

    private static final String FENCE_TTL_MS = Long.toString(Duration.ofDays(1).toMillis());
    private static final long RECHECK_MS = 1_000;
    private static final long MARGIN_MS = 3_000;
    private static final long WAIT_MS = 60_000;
    private static final String A = "client-a:1";
    private static final String B = "client-b:1";
    private static final String C = "client-c:1";
    private static final String D = "client-d:1";

    @Test
    void freeLockWithoutWaitersIsGrantedWithTokenAndLeavesNoQueue() throws Exception {
        List<Object> reply = acquire(A, 10_000, WAIT_MS);

        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat((Long) reply.get(1)).isPositive();
        assertThat(reply.get(2)).isEqualTo(1L);
        assertThat(sync.hgetall(keys.lock())).containsEntry(A, "1").containsEntry("~token", reply.get(1).toString());
        assertThat(sync.pttl(keys.lock())).isBetween(1L, 10_000L);
        assertThat(sync.get(keys.fence())).isEqualTo(reply.get(1).toString());
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
    }

    @Test
    void reentryByTheHolderSucceedsPastQueuedWaitersAndKeepsTheToken() throws Exception {
        List<Object> first = acquire(A, 10_000, WAIT_MS);
        acquire(B, 10_000, WAIT_MS);

        List<Object> again = acquire(A, 10_000, WAIT_MS);

        assertThat(again).containsExactly(1L, first.get(1), 2L);
        assertThat(sync.get(keys.fence())).isEqualTo(first.get(1).toString());
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(B);
    }

    @Test
    void busyLockQueuesTheCallerOnceWithADeadlineAndBoundsItsSleep() throws Exception {
        acquire(A, 60_000, WAIT_MS);

        List<Object> first = acquire(B, 60_000, WAIT_MS);
        double firstDeadline = sync.zscore(keys.timeouts(), B);
        await(5); // server time moves on, so the refreshed deadline is later
        List<Object> second = acquire(B, 60_000, WAIT_MS);

        assertThat(first).containsExactly(0L, RECHECK_MS, 0L);
        assertThat(second).containsExactly(0L, RECHECK_MS, 0L);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(B);
        long now = serverMillis();
        assertThat(sync.zscore(keys.timeouts(), B)).isGreaterThan(firstDeadline)
                .isBetween((double) now + MARGIN_MS, (double) now + RECHECK_MS + MARGIN_MS);
        // queue and deadlines expire together once no waiter can still be alive
        assertThat(sync.pttl(keys.queue())).isBetween(1L, RECHECK_MS + MARGIN_MS);
        assertThat(sync.pttl(keys.timeouts())).isBetween(1L, RECHECK_MS + MARGIN_MS);
    }

    @Test
    void shortLeaseOfTheHolderBoundsTheWaitersSleep() throws Exception {
        acquire(A, 300, WAIT_MS);

        List<Object> busy = acquire(B, 60_000, WAIT_MS);

        assertThat((Long) busy.get(1)).isBetween(0L, 300L);
    }

    @Test
    void shortWaitShortensTheDeadline() throws Exception {
        acquire(A, 60_000, WAIT_MS);

        acquire(B, 60_000, 100);

        assertThat(sync.zscore(keys.timeouts(), B)).isLessThanOrEqualTo((double) serverMillis() + 100 + MARGIN_MS);
    }

    @Test
    void singleAttemptOnABusyLockIsNotQueued() throws Exception {
        acquire(A, 60_000, WAIT_MS);

        List<Object> busy = acquire(B, 60_000, 0);

        assertThat(busy.get(0)).isEqualTo(0L);
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
    }

    @Test
    void freeLockGoesOnlyToTheHeadOfTheQueueInArrivalOrder() throws Exception {
        acquire(A, 60_000, WAIT_MS);
        acquire(B, 60_000, WAIT_MS);
        acquire(C, 60_000, WAIT_MS);
        acquire(D, 60_000, 0);
        release(A);

        assertThat(acquire(C, 60_000, WAIT_MS).get(0)).as("C is behind B").isEqualTo(0L);
        assertThat(acquire(D, 60_000, 0).get(0)).as("a newcomer does not barge in").isEqualTo(0L);
        assertThat(acquire(B, 60_000, WAIT_MS).get(0)).isEqualTo(1L);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(C);
        release(B);
        assertThat(acquire(C, 60_000, WAIT_MS).get(0)).isEqualTo(1L);
        release(C);
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
    }

    @Test
    void headWhoseDeadlinePassedIsDroppedAndTheNextWaiterIsGranted() throws Exception {
        acquire(A, 60_000, WAIT_MS);
        acquire(B, 60_000, WAIT_MS);
        acquire(C, 60_000, WAIT_MS);
        release(A);
        sync.zadd(keys.timeouts(), serverMillis() - 1, B); // B crashed: its deadline passed

        List<Object> reply = acquire(C, 60_000, WAIT_MS);

        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
    }

    @Test
    void droppingADeadHeadWakesTheNewHeadWhenTheLockIsFree() throws Exception {
        acquire(A, 60_000, WAIT_MS);
        acquire(B, 60_000, WAIT_MS);
        acquire(C, 60_000, WAIT_MS);
        acquire(D, 60_000, WAIT_MS);
        release(A);
        sync.zadd(keys.timeouts(), serverMillis() - 1, B);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);

        List<Object> reply = acquire(D, 60_000, WAIT_MS);

        assertThat(reply.get(0)).as("D is behind C").isEqualTo(0L);
        assertThat(toC.poll(5, TimeUnit.SECONDS)).endsWith(WakeupHub.DIRECTED);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(C, D);
        assertThat(sync.zrange(keys.timeouts(), 0, -1)).containsExactlyInAnyOrder(C, D);
    }

    @Test
    void releasePublishesOnlyToTheNextWaitersOwnChannel() throws Exception {
        acquire(A, 60_000, WAIT_MS);
        acquire(B, 60_000, WAIT_MS);
        acquire(C, 60_000, WAIT_MS);
        BlockingQueue<String> toB = probe.subscribe(keys.waiterChannelPrefix() + B);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);
        BlockingQueue<String> shared = probe.subscribe(keys.channel());

        assertThat(release(A)).isEqualTo(1L);

        assertThat(toB.poll(5, TimeUnit.SECONDS)).isEqualTo("client-a" + WakeupHub.DIRECTED);
        // PUBLISH is delivered in order on one connection: a ping on the shared channel flushes anything earlier
        sync.publish(keys.channel(), "flush");
        assertThat(shared.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
        assertThat(toC).isEmpty();
        assertThat(toB).isEmpty();
    }

    @Test
    void releaseSkipsDeadWaitersAndWakesTheFirstLiveOne() throws Exception {
        acquire(A, 60_000, WAIT_MS);
        acquire(B, 60_000, WAIT_MS);
        acquire(C, 60_000, WAIT_MS);
        sync.zadd(keys.timeouts(), serverMillis() - 1, B);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);

        release(A);

        assertThat(toC.poll(5, TimeUnit.SECONDS)).isNotNull();
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(C);
    }

    @Test
    void releaseCountsDownReentryAndRefusesOtherOwners() throws Exception {
        acquire(A, 60_000, WAIT_MS);
        acquire(A, 60_000, WAIT_MS);

        assertThat(release(B)).isEqualTo(-1L);
        assertThat(release(A)).isEqualTo(0L);
        assertThat(sync.hget(keys.lock(), A)).isEqualTo("1");
        assertThat(release(A)).isEqualTo(1L);
        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(release(A)).isEqualTo(-1L);
    }

    @Test
    void waiterThatGivesUpLeavesQueueAndTimeouts() throws Exception {
        acquire(A, 60_000, WAIT_MS);
        acquire(B, 60_000, WAIT_MS);
        acquire(C, 60_000, WAIT_MS);

        assertThat(leave(C)).isEqualTo(1L);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(B);
        assertThat(sync.zrange(keys.timeouts(), 0, -1)).containsExactly(B);
        assertThat(leave(B)).isEqualTo(1L);
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
        assertThat(leave(B)).as("not queued any more").isZero();
        assertThat(sync.hget(keys.lock(), A)).as("the holder is untouched").isEqualTo("1");
    }

    @Test
    void headThatGivesUpOnAFreeLockWakesTheNextWaiter() throws Exception {
        acquire(A, 60_000, WAIT_MS);
        acquire(B, 60_000, WAIT_MS);
        acquire(C, 60_000, WAIT_MS);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);
        release(A); // wakes B, which then gives up instead of taking the lock

        leave(B);

        assertThat(toC.poll(5, TimeUnit.SECONDS)).isEqualTo("client-b:1" + WakeupHub.DIRECTED);
        assertThat(acquire(C, 60_000, WAIT_MS).get(0)).isEqualTo(1L);
    }

    @Test
    void fairAndPlainGrantsShareOneStrictlyIncreasingFencingCounter() throws Exception {
        long plain = (Long) scripts.array(LockScript.ACQUIRE, new String[] {keys.lock(), keys.fence()}, A, "10000", FENCE_TTL_MS)
                .get(5, TimeUnit.SECONDS).get(1);
        sync.del(keys.lock());
        long fair = (Long) acquire(B, 10_000, WAIT_MS).get(1);
        sync.del(keys.lock(), keys.fence());
        long afterCounterLost = (Long) acquire(C, 10_000, WAIT_MS).get(1);

        assertThat(fair).isEqualTo(plain + 1);
        assertThat(afterCounterLost).as("seeded from server time in micros").isGreaterThan(fair);
        assertThat(sync.pttl(keys.fence())).isGreaterThan(Duration.ofHours(23).toMillis());
    }

    private List<Object> acquire(String owner, long leaseMs, long waitMs) throws Exception {
        return scripts.array(LockScript.FAIR_ACQUIRE, new String[] {keys.lock(), keys.fence(), keys.queue(), keys.timeouts()}, owner,
                Long.toString(leaseMs), FENCE_TTL_MS, Long.toString(waitMs), Long.toString(RECHECK_MS), Long.toString(MARGIN_MS),
                keys.waiterChannelPrefix(), WakeupHub.directed(owner)).get(5, TimeUnit.SECONDS);
    }

    private long release(String owner) throws Exception {
        return scripts.integer(LockScript.FAIR_RELEASE, new String[] {keys.lock(), keys.queue(), keys.timeouts()}, owner,
                keys.waiterChannelPrefix(), WakeupHub.directed(owner.substring(0, owner.indexOf(':')))).get(5, TimeUnit.SECONDS);
    }

    private long leave(String owner) throws Exception {
        return scripts.integer(LockScript.FAIR_LEAVE, new String[] {keys.lock(), keys.queue(), keys.timeouts()}, owner,
                keys.waiterChannelPrefix(), WakeupHub.directed(owner)).get(5, TimeUnit.SECONDS);
    }

    private long serverMillis() {
        List<String> time = sync.time();
        return Long.parseLong(time.get(0)) * 1_000 + Long.parseLong(time.get(1)) / 1_000;
    }

    /** Lets at least {@code ms} of server time pass. */
    private void await(long ms) {
        long until = serverMillis() + ms;
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(1)).until(() -> serverMillis() > until);
    }
}
