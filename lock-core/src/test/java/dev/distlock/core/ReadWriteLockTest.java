package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
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

/** Read/write lock semantics across threads and clients: sharing, exclusion, downgrade, no upgrade, ownership, tokens. */
@BehaviourTest
class ReadWriteLockTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final RecordingListener events = new RecordingListener();
    private LockClient client;
    private LockClient otherClient;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().listener(events).build());
        otherClient = LockClient.create(RedisURI.create(redis.server().uri()));
        name = Names.fresh("rw");
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherClient.close();
    }

    @Test
    void readersOfSeveralThreadsAndTwoClientsHoldAtOnce() throws Exception {
        int readers = 4;
        CountDownLatch allIn = new CountDownLatch(readers);
        List<OtherThread<Boolean>> threads = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            LockClient c = i % 2 == 0 ? client : otherClient;
            threads.add(OtherThread.start(() -> {
                RedisLock read = c.getReadWriteLock(name).readLock();
                if (!read.tryLock(Duration.ofSeconds(5))) {
                    return false;
                }
                try {
                    allIn.countDown();
                    return allIn.await(10, TimeUnit.SECONDS); // every reader holds while the others do
                } finally {
                    read.unlock();
                }
            }));
        }

        for (OtherThread<Boolean> t : threads) {
            assertThat(t.get()).isTrue();
        }
        assertThat(client.getReadWriteLock(name).writeLock().isLocked()).isFalse();
    }

    @Test
    void writerExcludesReadersAndWritersOfEveryThreadAndClient() throws Exception {
        RedisLock write = client.getReadWriteLock(name).writeLock();
        write.lock();

        assertThat(OtherThread.call(
                        () -> tryOnce(otherClient.getReadWriteLock(name).readLock())))
                .isFalse();
        assertThat(OtherThread.call(
                        () -> tryOnce(otherClient.getReadWriteLock(name).writeLock())))
                .isFalse();
        assertThat(OtherThread.call(
                        () -> client.getReadWriteLock(name).readLock().tryLock(Waits.RUNS_OUT)))
                .isFalse();
        assertThat(OtherThread.call(
                        () -> client.getReadWriteLock(name).writeLock().tryLock(Waits.RUNS_OUT)))
                .isFalse();

        write.unlock();
        assertThat(write.isLocked()).isFalse();
    }

    @Test
    void readersExcludeWritersUntilTheLastReaderLeaves() throws Exception {
        RedisLock read = client.getReadWriteLock(name).readLock();
        read.lock();
        RedisLock otherRead = otherClient.getReadWriteLock(name).readLock();
        otherRead.lock();

        assertThat(OtherThread.call(
                        () -> tryOnce(otherClient.getReadWriteLock(name).writeLock())))
                .isFalse();
        read.unlock();
        assertThat(OtherThread.call(
                        () -> client.getReadWriteLock(name).writeLock().tryLock(Waits.RUNS_OUT)))
                .isFalse();
        otherRead.unlock();

        OtherThread<Boolean> writer = OtherThread.start(() -> {
            RedisLock write = client.getReadWriteLock(name).writeLock();
            boolean got = tryOnce(write);
            write.unlock();
            return got;
        });
        assertThat(writer.get()).isTrue();
    }

    @Test
    void writerDowngradesByTakingTheReadLockThenReleasingTheWriteLock() throws Exception {
        RedisReadWriteLock rw = client.getReadWriteLock(name);
        rw.writeLock().lock();
        rw.readLock().lock();
        assertThat(OtherThread.call(
                        () -> tryOnce(otherClient.getReadWriteLock(name).readLock())))
                .as("still writing")
                .isFalse();

        rw.writeLock().unlock();

        assertThat(rw.readLock().isHeldByCurrentThread()).isTrue();
        assertThat(rw.writeLock().isHeldByCurrentThread()).isFalse();
        assertThat(OtherThread.call(() -> {
                    RedisLock read = otherClient.getReadWriteLock(name).readLock();
                    boolean got = tryOnce(read);
                    read.unlock();
                    return got;
                }))
                .as("other readers share now")
                .isTrue();
        assertThat(OtherThread.call(
                        () -> tryOnce(otherClient.getReadWriteLock(name).writeLock())))
                .isFalse();
        rw.readLock().unlock();
        assertThat(rw.readLock().isLocked()).isFalse();
    }

    @Test
    void readHolderAskingForTheWriteLockGetsIllegalStateExceptionAtOnce() throws Exception {
        RedisReadWriteLock rw = client.getReadWriteLock(name);
        rw.readLock().lock();

        long start = System.nanoTime();
        assertThatThrownBy(() -> rw.writeLock().lock())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name)
                .hasMessageContaining("upgrade");
        assertThatThrownBy(() -> rw.writeLock().tryLock(Duration.ofSeconds(20)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> rw.writeLock().lockInterruptibly()).isInstanceOf(IllegalStateException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));

        assertThat(rw.readLock().isHeldByCurrentThread()).isTrue();
        await().atMost(Waits.GRANTED)
                .untilAsserted(() -> assertThat(client.localGates()).isZero());
        rw.readLock().unlock();
        rw.writeLock().lock(); // no read hold left: the write lock is free for this thread
        rw.writeLock().unlock();
    }

    @Test
    @SuppressWarnings("deprecation") // Thread.getId, as the owner id uses on Java 17
    void readHoldKnownOnlyToRedisStillRefusesTheUpgradeAtOnce() throws Exception {
        // the script guards too: a read hold this client does not know of (here written behind its back)
        String owner = client.clientId() + ':' + Thread.currentThread().getId();
        try (RedisProbe probe = RedisProbe.connect(redis.server())) {
            LockKeys keys = LockKeys.of("lock:", name);
            probe.scripts()
                    .array(
                            LockScript.RW_READ_ACQUIRE,
                            new String[] {keys.lock(), keys.fence(), keys.writers()},
                            owner,
                            "10000",
                            "60000",
                            "0",
                            "written-behind-its-back")
                    .get(5, TimeUnit.SECONDS);

            long start = System.nanoTime();
            assertThatThrownBy(() -> client.getReadWriteLock(name).writeLock().tryLock(Duration.ofSeconds(20)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("upgrade");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            await().atMost(Waits.GRANTED)
                    .untilAsserted(() -> assertThat(client.localGates()).isZero());
            assertThat(client.subscribedChannels()).isZero();
        }
    }

    @Test
    void onlyTheOwningThreadCanReleaseAndOnlyTheKindItHolds() throws Exception {
        RedisReadWriteLock rw = client.getReadWriteLock(name);
        rw.readLock().lock();

        assertThat(OtherThread.failure(() -> {
                    client.getReadWriteLock(name).readLock().unlock();
                    return null;
                }))
                .isInstanceOf(IllegalMonitorStateException.class);
        assertThatThrownBy(() -> rw.writeLock().unlock()).isInstanceOf(IllegalMonitorStateException.class);

        assertThat(rw.readLock().isHeldByCurrentThread()).isTrue();
        assertThat(rw.readLock().isLocked()).isTrue();
        rw.readLock().unlock();
    }

    @Test
    void everyReadGrantGetsAFreshTokenAndReentryKeepsIt() throws Exception {
        RedisReadWriteLock rw = client.getReadWriteLock(name);
        rw.readLock().lock();
        long first = rw.readLock().currentFencingToken();
        rw.readLock().lock();
        assertThat(rw.readLock().currentFencingToken()).isEqualTo(first);
        assertThat(rw.readLock().getHoldCount()).isEqualTo(2);

        long other = OtherThread.call(() -> {
            RedisLock read = otherClient.getReadWriteLock(name).readLock();
            read.lock();
            long token = read.currentFencingToken();
            read.unlock();
            return token;
        });
        rw.readLock().unlock();
        rw.readLock().unlock();
        rw.writeLock().lock();
        long write = rw.writeLock().currentFencingToken();
        rw.writeLock().unlock();

        assertThat(other).isGreaterThan(first);
        assertThat(write).isGreaterThan(other);
    }

    @Test
    void eventsCarryTheReadAndWriteKindsAndTheLabel() throws Exception {
        RedisReadWriteLock rw = client.getReadWriteLock(name, "Prices.update");
        rw.writeLock().lock();
        rw.writeLock().unlock();
        rw.readLock().lock();
        rw.readLock().unlock();

        assertThat(events.acquires(name))
                .extracting(a -> a.lock().type())
                .containsExactly(LockType.WRITE, LockType.READ);
        assertThat(events.releases(name)).extracting(r -> r.lock().name()).containsOnly("Prices.update");
        assertThat(rw.getKey()).isEqualTo(name);
    }

    @Test
    void aReentrantLockAndAReadWriteLockOfTheSameNameExcludeEachOther() throws Exception {
        RedisLock plain = client.getLock(name);
        plain.lock();

        assertThat(OtherThread.call(
                        () -> tryOnce(otherClient.getReadWriteLock(name).readLock())))
                .isFalse();
        assertThat(tryOnce(client.getReadWriteLock(name).readLock())).isFalse();
        plain.unlock();
    }
}
