package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leases: explicit ones expire on their own, watchdog ones live while the holder does and no longer. */
@BehaviourTest
class RedisLockLeaseTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /**
     * Short enough to see several renewals in a test, long enough for a loaded machine to renew on time: a
     * renewal (every lease/3) a second late still lands (600 ms left it a fifth of a second).
     */
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(2);

    private final RecordingListener events = new RecordingListener();
    private LockClient holderClient;
    private LockClient otherClient;
    private RedisProbe probe;
    private String name;
    private String key;

    @BeforeEach
    void setUp() {
        holderClient = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        .watchdogLease(WATCHDOG_LEASE)
                        .listener(events)
                        .build());
        otherClient = LockClient.create(RedisURI.create(redis.server().uri()));
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("lease");
        key = "lock:{" + name + "}";
    }

    @AfterEach
    void tearDown() {
        holderClient.close();
        otherClient.close();
        probe.close();
    }

    @Test
    void explicitLeaseFreesTheLockWhenItsHolderVanishesWithoutUnlocking() throws Exception {
        Duration lease = Duration.ofMillis(1500);
        long start = System.nanoTime();
        holderClient.getLock(name).lock(lease);

        holderClient.close(); // the holder is gone without unlocking
        assertThat(events.leaseLosses(name))
                .as("a fixed lease lasts as long as its holder was told, closed client or not")
                .isEmpty();
        RedisLock other = otherClient.getLock(name);
        boolean acquired = other.tryLock(Duration.ofSeconds(10));
        Duration sinceHolderLocked = Duration.ofNanos(System.nanoTime() - start);

        assertThat(acquired).isTrue();
        // Redis cannot expire the key before its lease: an earlier grant would mean close() released it
        assertThat(sinceHolderLocked).isGreaterThanOrEqualTo(lease);
        assertThat(sinceHolderLocked).isLessThan(Duration.ofSeconds(8));
        other.unlock();
    }

    @Test
    void watchdogLeaseFreesTheLockWithinALeaseOnceItsClientIsClosed() throws Exception {
        RedisLock held = holderClient.getLock(name);
        held.lock();
        // prove the watchdog is renewing before the holder goes away
        await().atMost(Waits.GRANTED)
                .until(() -> events.renewals(name, RenewalOutcome.RENEWED).size() >= 2);

        holderClient.close();
        long closed = System.nanoTime();
        assertThat(events.leaseLosses(name))
                .as("its holder is told at once that nothing renews its lease any more")
                .singleElement()
                .satisfies(loss -> assertThat(loss.reason()).contains("its client was closed while it was held"));
        assertThatThrownBy(held::unlock)
                .isInstanceOf(LockLeaseExpiredException.class)
                .hasMessageContaining("its client was closed");
        RedisLock other = otherClient.getLock(name);
        boolean acquired = other.tryLock(Waits.GRANTED);

        assertThat(acquired).isTrue();
        // within the lease it had left, with room for a loaded host: not after a wait that ran out
        assertThat(Duration.ofNanos(System.nanoTime() - closed)).isLessThan(WATCHDOG_LEASE.plusSeconds(5));
        other.unlock();
    }

    @Test
    void watchdogKeepsTheLockPastTwoLeases() throws Exception {
        RedisLock lock = holderClient.getLock(name);
        RedisLock other = otherClient.getLock(name);
        lock.lock();

        Duration twoLeases = WATCHDOG_LEASE.multipliedBy(2);
        await().during(twoLeases)
                .atMost(twoLeases.plus(Waits.GRANTED))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> probe.sync().exists(key) == 1 && !tryOnce(other));

        assertThat(events.renewals(name, RenewalOutcome.RENEWED)).hasSizeGreaterThanOrEqualTo(3);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(events.leaseLosses(name)).isEmpty();
        lock.unlock(); // does not throw: the hold was never lost
    }

    @Test
    void watchdogStopsAfterUnlockAndNothingRevivesTheLock() throws Exception {
        RedisLock lock = holderClient.getLock(name);
        lock.lock();
        await().atMost(Waits.GRANTED)
                .until(() -> events.renewals(name, RenewalOutcome.RENEWED).size() >= 1);

        lock.unlock();
        int renewalsAtUnlock = events.renewals.size();

        Duration twoLeases = WATCHDOG_LEASE.multipliedBy(2);
        await().during(twoLeases)
                .atMost(twoLeases.plus(Waits.GRANTED))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> probe.sync().exists(key) == 0 && events.renewals.size() == renewalsAtUnlock);
        assertThat(events.leaseLosses(name)).as("a released hold is not lost").isEmpty();
    }

    @Test
    void explicitLeaseIsNeverRenewedByTheWatchdog() throws Exception {
        RedisLock lock = holderClient.getLock(name);
        lock.lock(Duration.ofMillis(800));

        // the watchdog ticks every 667 ms: had it renewed this lease, the key would outlive the 5 s bound
        await().atMost(Duration.ofSeconds(5)).until(() -> probe.sync().exists(key) == 0);
        assertThat(events.renewals(name, RenewalOutcome.RENEWED)).isEmpty();
        // polled on this thread, the owner; the client's own estimate of the lease may trail Redis by a reply
        await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
    }

    @Test
    void reentryWithAShorterLeaseIsReflectedByTheHoldNotJustByRedis() throws Exception {
        RedisLock lock = holderClient.getLock(name);
        RedisLock other = otherClient.getLock(name);
        lock.lock(Duration.ofSeconds(30));
        lock.lock(Duration.ofMillis(300)); // re-entry sets the lease in Redis to 300 ms

        await().atMost(Duration.ofSeconds(5)).until(() -> probe.sync().exists(key) == 0);
        assertThat(tryOnce(other)).as("another owner can take the lock now").isTrue();

        // so the holder must not go on believing it holds the lock (polled on the owner thread)
        await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
        assertThat(lock.getHoldCount()).isZero();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLeaseExpiredException.class);
        other.unlock();
    }

    @Test
    void explicitLeaseIsWhatRedisHolds() {
        RedisLock lock = holderClient.getLock(name);
        lock.lock(Duration.ofSeconds(40));

        assertThat(probe.sync().pttl(key)).isGreaterThan(30_000L).isLessThanOrEqualTo(40_000L);
        lock.unlock();
    }
}
