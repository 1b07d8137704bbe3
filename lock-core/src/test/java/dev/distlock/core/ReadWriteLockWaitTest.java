package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Waiting on a read/write lock: a release wakes every waiter that may now get in, local and
 * remote, long before the 30 s default lease; nothing stays subscribed or queued afterwards.
 */
@BehaviourTest
class ReadWriteLockWaitTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration PROMPTLY = Duration.ofSeconds(3);

    private LockClient holderClient;
    private LockClient waiterClient;
    private RedisProbe probe;
    private String name;

    @BeforeEach
    void setUp() {
        holderClient = LockClient.create(RedisURI.create(redis.server().uri()));
        waiterClient = LockClient.create(RedisURI.create(redis.server().uri()));
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("rw-wait");
    }

    @AfterEach
    void tearDown() {
        holderClient.close();
        waiterClient.close();
        probe.close();
    }

    @Test
    void writeReleaseWakesAllWaitingReadersOfBothClientsAtOnce() throws Exception {
        RedisLock write = holderClient.getReadWriteLock(name).writeLock();
        write.lock();
        int readers = 6;
        CountDownLatch allIn = new CountDownLatch(readers);
        List<OtherThread<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            LockClient c = i % 2 == 0 ? holderClient : waiterClient;
            waiters.add(OtherThread.start(() -> {
                RedisLock read = c.getReadWriteLock(name).readLock();
                if (!read.tryLock(Duration.ofSeconds(25))) {
                    throw new AssertionError("reader not woken");
                }
                long at = System.nanoTime();
                allIn.countDown();
                allIn.await(10, TimeUnit.SECONDS); // readers share: all of them hold at once
                read.unlock();
                return at;
            }));
        }
        // readers never queue locally: every one of them waits in Redis on the shared channel
        await().atMost(Duration.ofSeconds(5))
                .until(() -> holderClient.subscribedChannels() == 1
                        && waiterClient.subscribedChannels() == 1
                        && waiters.stream().allMatch(w -> w.thread.getState() == Thread.State.TIMED_WAITING));
        assertThat(holderClient.localWaiters() + waiterClient.localWaiters()).isZero();

        long released = System.nanoTime();
        write.unlock();

        for (OtherThread<Long> waiter : waiters) {
            assertThat(Duration.ofNanos(waiter.get() - released)).isLessThan(PROMPTLY);
        }
        assertThat(allIn.getCount()).isZero();
    }

    @Test
    void writeReleaseWakesWaitingReadersAndWriters() throws Exception {
        RedisLock write = holderClient.getReadWriteLock(name).writeLock();
        write.lock();
        List<OtherThread<Long>> waiters = List.of(
                OtherThread.start(
                        () -> acquiredAt(waiterClient.getReadWriteLock(name).writeLock())),
                OtherThread.start(
                        () -> acquiredAt(holderClient.getReadWriteLock(name).writeLock())),
                OtherThread.start(
                        () -> acquiredAt(waiterClient.getReadWriteLock(name).readLock())),
                OtherThread.start(
                        () -> acquiredAt(holderClient.getReadWriteLock(name).readLock())));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> holderClient.subscribedChannels() == 1
                        && waiterClient.subscribedChannels() == 1
                        && holderClient.localWaiters() == 1);

        long released = System.nanoTime();
        write.unlock();

        for (OtherThread<Long> waiter : waiters) {
            assertThat(Duration.ofNanos(waiter.get() - released)).isLessThan(PROMPTLY);
        }
    }

    @Test
    void lastReadReleaseWakesWaitingWritersOfBothClients() throws Exception {
        RedisLock read = holderClient.getReadWriteLock(name).readLock();
        read.lock();
        List<OtherThread<Long>> writers = List.of(
                OtherThread.start(
                        () -> acquiredAt(waiterClient.getReadWriteLock(name).writeLock())),
                OtherThread.start(
                        () -> acquiredAt(holderClient.getReadWriteLock(name).writeLock())));
        await().atMost(Duration.ofSeconds(5))
                .until(() -> holderClient.subscribedChannels() == 1 && waiterClient.subscribedChannels() == 1);

        long released = System.nanoTime();
        read.unlock();

        for (OtherThread<Long> writer : writers) {
            assertThat(Duration.ofNanos(writer.get() - released)).isLessThan(PROMPTLY);
        }
    }

    @Test
    void downgradeLetsWaitingReadersInWhileTheWriterStillReads() throws Exception {
        RedisReadWriteLock rw = holderClient.getReadWriteLock(name);
        rw.writeLock().lock();
        rw.readLock().lock();
        OtherThread<Long> reader = OtherThread.start(
                () -> acquiredAt(waiterClient.getReadWriteLock(name).readLock()));
        await().atMost(Duration.ofSeconds(5)).until(() -> waiterClient.subscribedChannels() == 1);

        long released = System.nanoTime();
        rw.writeLock().unlock();

        assertThat(Duration.ofNanos(reader.get() - released)).isLessThan(PROMPTLY);
        assertThat(rw.readLock().isHeldByCurrentThread()).isTrue();
        rw.readLock().unlock();
    }

    @Test
    void noSubscriptionLocalGateOrQueueStaysBehindAfterWaitsEnd() throws Exception {
        RedisLock write = holderClient.getReadWriteLock(name).writeLock();
        write.lock();
        List<OtherThread<Boolean>> timeouts = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            timeouts.add(OtherThread.start(
                    () -> waiterClient.getReadWriteLock(name).readLock().tryLock(Waits.RUNS_OUT)));
            timeouts.add(OtherThread.start(
                    () -> waiterClient.getReadWriteLock(name).writeLock().tryLock(Waits.RUNS_OUT)));
        }
        for (OtherThread<Boolean> t : timeouts) {
            assertThat(t.get()).isFalse();
        }
        OtherThread<Long> reader = OtherThread.start(
                () -> acquiredAt(waiterClient.getReadWriteLock(name).readLock()));
        OtherThread<Long> writer = OtherThread.start(
                () -> acquiredAt(waiterClient.getReadWriteLock(name).writeLock()));
        await().atMost(Duration.ofSeconds(5)).until(() -> waiterClient.subscribedChannels() == 1);
        write.unlock();
        reader.get();
        writer.get();

        for (LockClient c : List.of(holderClient, waiterClient)) {
            assertThat(c.subscribedChannels()).isZero();
            assertThat(c.localGates()).isZero();
            assertThat(c.localWaiters()).isZero();
            assertThat(c.activeHolds()).isZero();
        }
        await().atMost(Duration.ofSeconds(5))
                .until(() -> probe.sync().pubsubChannels("lock:*").isEmpty());
        assertThat(probe.sync().exists("lock:{" + name + "}")).isZero();
    }

    /** Waits for {@code lock}, holds it very briefly and returns when it was granted. */
    private static long acquiredAt(RedisLock lock) throws InterruptedException {
        if (!lock.tryLock(Duration.ofSeconds(25))) {
            throw new AssertionError("not acquired within 25 s");
        }
        long at = System.nanoTime();
        lock.unlock();
        return at;
    }
}
