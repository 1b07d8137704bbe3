package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Exclusion;
import dev.distlock.core.testing.GiveUpStorm;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Fair waiters that leave the queue (timed out by the caller, timed out, interrupted, giving up as the lock
 * is granted to them) leave nothing in Redis and never strand the lock.
 */
@BehaviourTest
class FairQueueLeavingTest extends FairLockFixture {

    /**
     * lockAsync() waits without a limit; a caller bounds it with orTimeout. The wait must end with it: before,
     * only a cancel stopped it, and a timed-out wait kept its place in the queue (every later caller behind a
     * caller who had given up) until granted.
     */
    @Test
    void anEndlessWaitTimedOutByTheCallerLeavesTheQueue() throws Exception {
        RedisLock held = otherClient.getFairLock(name);
        held.lock();
        try {
            CompletableFuture<LockHandle> waiting =
                    client.getFairLock(name).lockAsync().toCompletableFuture().orTimeout(500, TimeUnit.MILLISECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().llen(keys.queue()) == 1);

            assertThat(waiting).failsWithin(Duration.ofSeconds(10));
            await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().llen(keys.queue()) == 0);
        } finally {
            held.unlock();
        }
        assertThat(probe.sync().exists(keys.lock()))
                .as("nobody takes it after its holder")
                .isZero();
    }

    /**
     * Waiters of two clients, threads and handles, giving up at every moment (short waits, handles
     * cancelled) while the lock is granted to the next waiter on every release: a grant made to a waiter
     * that just left is given back, so the lock is never stranded for the 30 s watchdog lease. One holder
     * at a time, each with a larger fencing token than the one before; a failure lists the holders around
     * the fault, by thread or handle and token.
     */
    @Test
    void waitersGivingUpAsTheLockIsGrantedToThemNeverStrandIt() throws Exception {
        GiveUpStorm storm = new GiveUpStorm(List.of(client.getFairLock(name), otherClient.getFairLock(name)), false);
        Exclusion exclusion = storm.run(Duration.ofSeconds(4));

        assertThat(exclusion.overlaps()).as(exclusion::report).isZero();
        assertThat(exclusion.tokenBreaks())
                .as(() -> "every holder a larger fencing token than the one before" + exclusion.report())
                .isZero();
        assertThat(exclusion.entries()).as("the lock was taken at all").isPositive();
        // Default 30 s watchdog lease: a grant stranded with a waiter that left would keep the lock that long.
        await().atMost(Duration.ofSeconds(3))
                .until(() -> !client.getFairLock(name).isLocked());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> probe.sync().exists(keys.queue(), keys.timeouts(), keys.waiting()) == 0);
        assertThat(client.activeHolds() + otherClient.activeHolds()).isZero();
    }

    @Test
    void waitersThatTimeOutOrAreInterruptedLeaveNothingInRedis() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        List<OtherThread<Boolean>> timeouts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockClient waiterClient = i % 2 == 0 ? client : otherClient;
            timeouts.add(OtherThread.start(() -> waiterClient.getFairLock(name).tryLock(Waits.RUNS_OUT)));
        }
        OtherThread<Boolean> interrupted =
                OtherThread.start(() -> otherClient.getFairLock(name).tryLock(Duration.ofSeconds(20)));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> queue().contains(otherClient.clientId() + ":" + interrupted.thread.getId()));

        interrupted.thread.interrupt();

        assertThat(interrupted.failure()).isInstanceOf(InterruptedException.class);
        for (OtherThread<Boolean> t : timeouts) {
            assertThat(t.get()).isFalse();
        }
        assertNoQueueLeft();
        held.unlock();
        assertThat(client.subscribedChannels()).isZero();
        assertThat(otherClient.subscribedChannels()).isZero();
    }
}
