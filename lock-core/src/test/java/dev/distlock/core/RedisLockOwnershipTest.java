package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Who owns a RedisLock, how re-entry counts, and what the lock reports about itself. */
@BehaviourTest
class RedisLockOwnershipTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private LockClient client;
    private LockClient otherClient;
    private RedisProbe probe;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(RedisURI.create(redis.server().uri()));
        otherClient = LockClient.create(RedisURI.create(redis.server().uri()));
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("owner");
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherClient.close();
        probe.close();
    }

    @Test
    void releasesOnlyForOwner() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();

        Throwable error = OtherThread.failure(() -> {
            lock.unlock();
            return null;
        });

        assertThat(error).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining("'" + name + "'");
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void sameThreadThroughAnotherClientIsNotTheOwner() throws Exception {
        RedisLock mine = client.getLock(name);
        RedisLock viaOtherClient = otherClient.getLock(name);
        mine.lock();

        assertThat(tryOnce(viaOtherClient))
                .as("not a re-entry: the owner id includes the client id")
                .isFalse();
        assertThat(viaOtherClient.getHoldCount()).isZero();
        assertThat(viaOtherClient.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(viaOtherClient::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name);
        assertThat(mine.getHoldCount()).isEqualTo(1);
        mine.unlock();
    }

    @Test
    void unlockWithoutHoldingThrowsNamingTheLock() {
        RedisLock lock = client.getLock(name);

        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("'" + name + "'");
    }

    @Test
    void reentryCountsHoldsAndOnlyTheLastUnlockFreesTheLock() throws Exception {
        RedisLock lock = client.getLock(name);
        RedisCommands<String, String> sync = probe.sync();
        String key = "lock:{" + name + "}";

        lock.lock();
        assertThat(tryOnce(lock)).isTrue();
        assertThat(lock.tryLock(Waits.GRANTED)).isTrue();

        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(sync.hget(
                        key, client.clientId() + ":" + Thread.currentThread().getId()))
                .isEqualTo("3");
        lock.unlock();
        lock.unlock();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertThat(lock.isLocked()).isTrue();
        assertThat(tryOnce(otherClient.getLock(name))).isFalse();
        lock.unlock();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(sync.exists(key)).isZero();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void holdIsInvisibleToOtherThreadsOfTheSameClient() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();

        int holdCountElsewhere = OtherThread.call(lock::getHoldCount);
        boolean heldElsewhere = OtherThread.call(lock::isHeldByCurrentThread);
        boolean takenElsewhere = OtherThread.call(lock::tryLock);

        assertThat(holdCountElsewhere).isZero();
        assertThat(heldElsewhere).isFalse();
        assertThat(takenElsewhere).isFalse();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
    }

    @Test
    void reentryKeepsTheFencingTokenAndTheNextGrantGetsALargerOne() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        long first = lock.currentFencingToken();
        lock.lock();
        assertThat(lock.currentFencingToken()).isEqualTo(first);
        lock.unlock();
        lock.unlock();

        RedisLock other = otherClient.getLock(name);
        other.lock();
        long second = other.currentFencingToken();
        other.unlock();
        lock.lock();
        long third = lock.currentFencingToken();
        lock.unlock();

        assertThat(second).isGreaterThan(first);
        assertThat(third).isGreaterThan(second);
    }

    @Test
    void fencingTokenWithoutHoldThrows() {
        RedisLock lock = client.getLock(name);

        assertThatThrownBy(lock::currentFencingToken)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(name);
    }

    @Test
    void isLockedAndRemainingLeaseReportWhatRedisHolds() throws Exception {
        RedisLock observed = client.getLock(name);
        assertThat(observed.isLocked()).isFalse();
        assertThat(observed.remainingLease()).isEqualTo(Duration.ZERO);

        RedisLock held = otherClient.getLock(name);
        held.lock(Duration.ofSeconds(20));

        assertThat(observed.isLocked()).isTrue();
        assertThat(observed.remainingLease())
                .isGreaterThan(Duration.ofSeconds(10))
                .isLessThanOrEqualTo(Duration.ofSeconds(20));
        held.unlock();
        assertThat(observed.isLocked()).isFalse();
        assertThat(observed.remainingLease()).isEqualTo(Duration.ZERO);
    }

    @Test
    void watchdogLeaseIsTheClientsWatchdogLease() {
        RedisLock lock = client.getLock(name);
        lock.lock();

        assertThat(lock.remainingLease())
                .isGreaterThan(Duration.ofSeconds(20))
                .isLessThanOrEqualTo(LockClientOptions.DEFAULT_WATCHDOG_LEASE);
        lock.unlock();
    }

    @Test
    void activeHoldsCountsValidHoldsOfTheClient() {
        RedisLock a = client.getLock(name + "-a");
        RedisLock b = client.getLock(name + "-b");
        assertThat(client.activeHolds()).isZero();

        a.lock();
        a.lock();
        b.lock();
        assertThat(client.activeHolds()).isEqualTo(2);
        a.unlock();
        a.unlock();
        b.unlock();
        assertThat(client.activeHolds()).isZero();
    }

    @Test
    void keysUseTheConfiguredPrefixAndTheNameAsHashTag() {
        try (LockClient prefixed = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().keyPrefix("myapp:locks:").build())) {
            RedisLock lock = prefixed.getLock(name);
            lock.lock();

            assertThat(probe.sync().exists("myapp:locks:{" + name + "}")).isEqualTo(1L);
            assertThat(client.getLock(name).isLocked())
                    .as("other prefix, other key")
                    .isFalse();
            lock.unlock();
        }
    }

    @Test
    void toStringAndNameShowTheLockName() {
        RedisLock lock = client.getLock(name);

        assertThat(lock.getKey()).isEqualTo(name);
        assertThat(lock).hasToString("RedisLock[" + name + "]");
    }
}
