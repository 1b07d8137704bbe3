package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.answered;
import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fair lock through the public API, threads of one and of two clients: arrival order, prompt wake-up
 * of the next waiter only, a try without a wait that neither queues nor passes the queue, and the contract
 * every lock keeps (owner-only release, watchdog renewal, lease loss reported). Hand-offs along a line of
 * waiters are {@link FairHandOffTest}'s, waiters leaving the queue {@link FairQueueLeavingTest}'s.
 */
@BehaviourTest
class FairLockTest extends FairLockFixture {

    @Test
    void threadsOfTwoClientsGetTheLockInTheOrderTheyQueued() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<OtherThread<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int id = i;
            RedisLock lock = (i % 2 == 0 ? otherClient : client).getFairLock(name);
            waiters.add(OtherThread.start(() -> {
                lock.lock();
                try {
                    order.add(id);
                } finally {
                    lock.unlock();
                }
                return null;
            }));
            // the next one starts only once this one has its place in Redis
            await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == id + 1);
        }
        assertThat(client.localWaiters()).as("fair waiters never queue locally").isZero();

        held.unlock();

        for (OtherThread<Void> waiter : waiters) {
            waiter.get();
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertNoQueueLeft();
    }

    @Test
    void nextWaiterInTheSameClientIsWokenByTheRelease() throws Exception {
        assertReleaseWakesTheNextWaiter(client);
    }

    @Test
    void nextWaiterInAnotherClientIsWokenByTheRelease() throws Exception {
        assertReleaseWakesTheNextWaiter(otherClient);
    }

    /** The holder keeps a 30 s lease and the waiter never re-checks on its own: only the release can wake it in time. */
    private void assertReleaseWakesTheNextWaiter(LockClient waiterClient) throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        OtherThread<Long> waiter = OtherThread.start(() -> {
            RedisLock lock = waiterClient.getLock(SLEEPY, name, name);
            if (!lock.tryLock(Duration.ofSeconds(25))) {
                throw new AssertionError("not acquired");
            }
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> queue().size() == 1 && waiterClient.subscribedChannels() == 1);

        long released = System.nanoTime();
        held.unlock();

        assertThat(Duration.ofNanos(waiter.get() - released)).isLessThan(Duration.ofSeconds(5));
        assertNoQueueLeft();
    }

    @Test
    void releaseWakesOnlyTheNextWaiterAndTheOthersStayAsleep() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        CountDownLatch finish = new CountDownLatch(1);
        List<OtherThread<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int id = i;
            LockClient waiterClient = i == 1 ? client : otherClient;
            waiters.add(OtherThread.start(() -> {
                RedisLock lock = waiterClient.getLock(SLEEPY, name, name);
                lock.lock();
                try {
                    finish.await(20, TimeUnit.SECONDS);
                } finally {
                    lock.unlock();
                }
                return null;
            }));
            await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == id + 1);
        }
        List<String> queued = queue();
        // each attempt of a waiter refreshes its deadline: unchanged deadlines mean the later waiters never woke
        Map<String, Double> deadlinesBefore = deadlines(queued.subList(1, 3));

        held.unlock();

        await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().hexists(keys.lock(), queued.get(0)));
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> deadlines(queued.subList(1, 3)).equals(deadlinesBefore));
        assertThat(queue()).containsExactlyElementsOf(queued.subList(1, 3));
        finish.countDown();
        for (OtherThread<Void> waiter : waiters) {
            waiter.get();
        }
        assertNoQueueLeft();
    }

    @Test
    void tryLockWithoutWaitNeitherQueuesNorPassesQueuedWaiters() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        OtherThread<Boolean> waiter = OtherThread.start(() -> {
            RedisLock lock = otherClient.getLock(SLEEPY, name, name);
            boolean acquired = lock.tryLock(Duration.ofSeconds(20));
            lock.unlock();
            return acquired;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1);

        assertThat(OtherThread.call(() -> tryOnce(client.getFairLock(name)))).isFalse();
        assertThat(queue()).hasSize(1);
        held.unlock();
        assertThat(waiter.get()).isTrue();
        assertNoQueueLeft();
    }

    /**
     * A fair hold whose lease ran out in Redis without its client noticing (here its key deleted under a fixed
     * lease, which nothing renews), re-entered while another client holds the lock: the re-entry queues, and
     * the other client's release grants the lock to it anew, under the same grant id and with a new token. That
     * is a new hold, not a re-entry of the old one: the old one is reported lost, and the token is the new one.
     * Before, the client counted it as a re-entry, kept the old token and reported nothing, although the other
     * client had held the lock in between.
     */
    @Test
    void aReentryGrantedAnewAfterTheHoldRanOutReportsTheOldHoldLost() throws Exception {
        RedisLock lock = client.getFairLock(name);
        assertThat(answered(() -> lock.tryLock(Duration.ZERO, Duration.ofSeconds(60))))
                .isTrue();
        long first = lock.currentFencingToken();
        probe.sync().del(keys.lock()); // its lease is over in Redis; this client does not know yet

        LockHandle other =
                otherClient.getFairLock(name).lockAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
        long othersToken = other.fencingToken();
        OtherThread<Void> release = OtherThread.start(() -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().llen(keys.queue()) == 1);
            other.unlock();
            return null;
        });

        assertThat(lock.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(60))).isTrue();
        release.get();

        assertThat(events.leaseLosses(lock.getKey()))
                .as("the old hold, reported lost")
                .hasSize(1);
        assertThat(lock.currentFencingToken()).isGreaterThan(othersToken).isGreaterThan(first);
        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void releasesOnlyForOwnerAndReentryKeepsTheFencingToken() throws Exception {
        RedisLock lock = client.getFairLock(name);
        lock.lock();
        long token = lock.currentFencingToken();
        lock.lock();

        Throwable error = OtherThread.failure(() -> {
            lock.unlock();
            return null;
        });

        assertThat(error).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(name);
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.currentFencingToken()).isEqualTo(token);
        lock.unlock();
        assertThat(lock.isLocked()).isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        lock.lock();
        assertThat(lock.currentFencingToken()).isGreaterThan(token);
        lock.unlock();
        assertThat(events.acquires(name))
                .allSatisfy(e -> assertThat(e.lock().type()).isEqualTo(LockType.FAIR));
    }

    @Test
    void watchdogKeepsAFairLockWhileItsHolderRuns() throws Exception {
        try (LockClient fast = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        .watchdogLease(WATCHDOG_LEASE)
                        .listener(events)
                        .build())) {
            RedisLock lock = fast.getFairLock(name);
            lock.lock();

            // Three renewals, every lease/3: the hold outlived the lease it was granted with.
            await().atMost(Waits.GRANTED)
                    .until(() -> events.renewals(name, RenewalOutcome.RENEWED).size() >= 3);

            assertThat(lock.isLocked()).isTrue();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(events.leaseLosses(name)).isEmpty();
            lock.unlock();
        }
    }

    @Test
    void lostFairLockIsReportedAndUnlockSaysSo() throws Exception {
        try (LockClient fast = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        .watchdogLease(WATCHDOG_LEASE)
                        .listener(events)
                        .build())) {
            RedisLock lock = fast.getFairLock(name);
            lock.lock();

            assertThat(otherClient.getFairLock(name).forceUnlock()).isTrue();

            // seen at the next renewal, lease/3 on
            await().atMost(WATCHDOG_LEASE.plus(Waits.GRANTED))
                    .until(() -> events.leaseLosses(name).size() == 1);
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining(name);
            lock.lock();
            lock.unlock();
        }
    }
}
