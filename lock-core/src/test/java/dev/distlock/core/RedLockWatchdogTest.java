package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.answered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.core.testing.RedLockNodes;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The RedLock watchdog: renews on every node, and reports loss when a majority loses the key. */
@BehaviourTest
class RedLockWatchdogTest {

    /**
     * Renewed every third of it: 2 s leaves a renewal well over a second to come back on a busy host (with
     * 600 ms, a renewal delayed by a loaded scheduler once let the lock run out with a node down).
     */
    private static final Duration LEASE = Duration.ofSeconds(2);

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private RedLockNodes nodes;
    private final RecordingListener events = new RecordingListener();

    @BeforeEach
    void startNodes() {
        nodes = new RedLockNodes(redis);
    }

    @AfterEach
    void closeClients() throws Exception {
        nodes.close();
    }

    private RedisLock lock(String hint) {
        return nodes.connect(
                        3,
                        LockClientOptions.builder()
                                .watchdogLease(LEASE)
                                .listener(events)
                                .build())
                .getLock(Names.fresh(hint));
    }

    @Test
    void keepsTheLockPastThreeLeasesOnEveryNode() throws Exception {
        RedisLock lock = lock("kept");
        lock.lock();
        long start = System.nanoTime();

        await().atMost(LEASE.multipliedBy(3).plus(Waits.GRANTED))
                .until(() -> System.nanoTime() - start > LEASE.multipliedBy(3).toNanos()
                        && events.renewals(lock.getKey(), RenewalOutcome.RENEWED)
                                        .size()
                                >= 6);

        assertThat(lock.isHeldByCurrentThread()).isTrue();
        for (int i = 0; i < 3; i++) {
            assertThat(nodes.hasKey(i, lock.getKey()))
                    .as("node %d still holds the key", i)
                    .isTrue();
        }
        assertThat(events.leaseLosses(lock.getKey())).isEmpty();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void keepsTheLockWhileOneNodeIsDown() throws Exception {
        RedisLock lock = lock("minority-down");
        lock.lock();
        nodes.server(2).stop();
        long start = System.nanoTime();

        await().atMost(LEASE.multipliedBy(3).plus(Waits.GRANTED))
                .until(() -> System.nanoTime() - start > LEASE.multipliedBy(3).toNanos());

        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(events.leaseLosses(lock.getKey())).isEmpty();
        lock.unlock();
    }

    @Test
    void reportsLossOnceWhenAMajorityLosesTheKey() throws Exception {
        RedisLock lock = lock("lost");
        lock.lock();
        // lock() returns once a majority granted; on a busy machine the third node's acquire may still be on
        // its way, and landing after the flush below it would rightly keep a majority. Flush once all have it.
        for (int i = 0; i < 3; i++) {
            int node = i;
            await().atMost(Waits.GRANTED).until(() -> nodes.hasKey(node, lock.getKey()));
        }

        nodes.server(0).command("FLUSHALL");
        nodes.server(1).command("FLUSHALL");

        await().atMost(Waits.GRANTED)
                .until(() -> !events.leaseLosses(lock.getKey()).isEmpty());
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(events.leaseLosses(lock.getKey()).get(0).reason()).contains("1 of 3 nodes");
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LockLeaseExpiredException.class)
                .hasMessageContaining(lock.getKey());
        assertThat(events.leaseLosses(lock.getKey())).hasSize(1);
        assertThat(nodes.hasKey(2, lock.getKey()))
                .as("the lost hold is cleaned up on the node that still had it")
                .isFalse();
    }

    @Test
    void interruptOnLeaseLostStopsTheHoldersThread() throws Exception {
        RedisLock lock = nodes.connect(
                        3,
                        LockClientOptions.builder()
                                .watchdogLease(LEASE)
                                .interruptOnLeaseLost(true)
                                .build())
                .getLock(Names.fresh("interrupt"));
        java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
        OtherThread<Throwable> worker = OtherThread.start(() -> {
            lock.lock();
            try {
                holding.countDown();
                Thread.sleep(30_000);
                return null;
            } catch (InterruptedException e) {
                return e;
            } finally {
                try {
                    lock.unlock();
                } catch (LockLeaseExpiredException expected) {
                    // reported again at unlock
                }
            }
        });
        holding.await();
        // As in reportsLossOnceWhenAMajorityLosesTheKey: flush only once every node has the key, or a late third
        // grant keeps a majority and the holder rightly keeps its lock.
        for (int i = 0; i < 3; i++) {
            int node = i;
            await().atMost(Waits.GRANTED).until(() -> nodes.hasKey(node, lock.getKey()));
        }
        nodes.server(0).command("FLUSHALL");
        nodes.server(1).command("FLUSHALL");
        assertThat(worker.get()).isInstanceOf(InterruptedException.class);
    }

    @Test
    void explicitLeaseIsNotRenewedAndUnlockAfterItRanOutSaysSo() throws Exception {
        RedisLock lock = lock("explicit");
        assertThat(answered(() -> lock.tryLock(Duration.ZERO, Duration.ofMillis(300))))
                .isTrue();

        await().atMost(Waits.GRANTED).pollInSameThread().until(() -> !lock.isHeldByCurrentThread());

        await().atMost(Waits.GRANTED).until(() -> !lock.isLocked());
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LockLeaseExpiredException.class)
                .hasMessageContaining("300 ms");
        assertThat(events.leaseLosses(lock.getKey())).hasSize(1);
    }
}
