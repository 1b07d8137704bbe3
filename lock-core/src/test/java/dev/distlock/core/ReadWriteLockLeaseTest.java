package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leases of read holds: each reader's own, renewed by the watchdog, lost and reported like any hold. */
@BehaviourTest
class ReadWriteLockLeaseTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /**
     * The watchdog ticks every third of this. A hold is lost when no renewal is confirmed within one lease:
     * 2 s leaves a loaded machine room for a tick a second late (450 ms did not, and 600 ms need not).
     */
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(2);

    /** Room for the next renewal to see a loss, on a host however busy. */
    private static final Duration NOTICED = WATCHDOG_LEASE.plus(Waits.GRANTED);

    private final RecordingListener events = new RecordingListener();
    private LockClient client;
    private LockClient otherClient;
    private RedisProbe probe;
    private String name;

    @BeforeEach
    void setUp() {
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(WATCHDOG_LEASE)
                .listener(events)
                .build();
        client = LockClient.create(RedisURI.create(redis.server().uri()), options);
        otherClient = LockClient.create(RedisURI.create(redis.server().uri()), options);
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("rw-lease");
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherClient.close();
        probe.close();
    }

    @Test
    void watchdogRenewsReadersAndWriterPastTwoLeases() throws Exception {
        RedisReadWriteLock rw = client.getReadWriteLock(name);
        rw.readLock().lock();
        OtherThread<Boolean> otherReader = OtherThread.start(() -> {
            RedisLock read = otherClient.getReadWriteLock(name).readLock();
            read.lock();
            Thread.sleep(WATCHDOG_LEASE.multipliedBy(3).toMillis());
            boolean held = read.isHeldByCurrentThread();
            read.unlock();
            return held;
        });

        await().during(WATCHDOG_LEASE.multipliedBy(2))
                .atMost(WATCHDOG_LEASE.multipliedBy(2).plus(Waits.GRANTED))
                .until(() ->
                        rw.readLock().isLocked() && events.leaseLosses(name).isEmpty());

        assertThat(otherReader.get()).isTrue();
        assertThat(rw.readLock().isHeldByCurrentThread()).isTrue();
        assertThat(events.renewals(name, RenewalOutcome.RENEWED)).hasSizeGreaterThanOrEqualTo(6);
        rw.readLock().unlock();

        rw.writeLock().lock();
        await().during(WATCHDOG_LEASE.multipliedBy(2))
                .atMost(WATCHDOG_LEASE.multipliedBy(2).plus(Waits.GRANTED))
                .until(() ->
                        rw.writeLock().isLocked() && events.leaseLosses(name).isEmpty());
        assertThat(rw.writeLock().isHeldByCurrentThread()).isTrue();
        rw.writeLock().unlock();
        assertThat(rw.writeLock().isLocked()).isFalse();
    }

    @Test
    void crashedReaderDoesNotKeepTheLockPastItsLeaseWhileAnotherReaderRenews() throws Exception {
        Duration crashedLease = Duration.ofMillis(1500);
        LockClient crashing = LockClient.create(RedisURI.create(redis.server().uri()));
        String crashedOwner = crashing.clientId();
        OtherThread.call(() -> {
            crashing.getReadWriteLock(name).readLock().lock(crashedLease);
            return null;
        });
        crashing.close(); // never unlocks
        RedisLock read = client.getReadWriteLock(name).readLock();
        read.lock(); // watchdog-renewed, keeps the hash alive beyond the crashed lease
        OtherThread<Long> writer = OtherThread.start(() -> {
            RedisLock write = otherClient.getReadWriteLock(name).writeLock();
            if (!write.tryLock(Duration.ofSeconds(20))) {
                throw new AssertionError("writer never got in");
            }
            long at = System.nanoTime();
            write.unlock();
            return at;
        });

        // the renewals settle the hash: the crashed reader's hold goes once its own lease is over
        await().atMost(crashedLease.plusSeconds(3))
                .until(() -> probe.sync().hkeys("lock:{" + name + "}").stream()
                        .noneMatch(field -> field.contains(crashedOwner)));
        assertThat(probe.sync().pttl("lock:{" + name + "}")).isBetween(1L, WATCHDOG_LEASE.toMillis());
        assertThat(writer.result).isNotDone();

        long released = System.nanoTime();
        read.unlock();

        assertThat(Duration.ofNanos(writer.get() - released)).isLessThan(Duration.ofSeconds(3));
    }

    @Test
    void lostReadHoldIsReportedOnceAndUnlockSaysSo() throws Exception {
        RedisLock read = client.getReadWriteLock(name).readLock();
        read.lock();

        assertThat(otherClient.getReadWriteLock(name).writeLock().forceUnlock()).isTrue();

        await().atMost(NOTICED).until(() -> events.leaseLosses(name).size() == 1);
        assertThat(events.leaseLosses(name).get(0).lock().type()).isEqualTo(LockType.READ);
        assertThat(read.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(read::unlock)
                .isInstanceOf(LockLeaseExpiredException.class)
                .hasMessageContaining(name);
        // the thread can read again afterwards
        read.lock();
        read.unlock();
        assertThat(events.leaseLosses(name)).hasSize(1);
    }

    @Test
    void explicitReadLeaseRunsOutAndIsReported() throws Exception {
        RedisLock read = client.getReadWriteLock(name).readLock();
        read.lock(Duration.ofMillis(200));

        await().atMost(Duration.ofSeconds(5))
                .until(() -> events.leaseLosses(name).size() == 1);
        assertThat(events.leaseLosses(name).get(0).reason()).contains("200 ms");
        assertThatThrownBy(read::unlock).isInstanceOf(LockLeaseExpiredException.class);
        assertThat(read.isLocked()).isFalse();
    }
}
