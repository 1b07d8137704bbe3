package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.answered;
import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.Settled;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Waiting for a busy lock: woken by the release (not by the TTL), bounded by the wait time, and
 * never leaving a subscription behind; a release nobody waited for wakes nobody (publishes nothing). Holders use the default 30 s watchdog lease, so a waiter
 * that only woke up on the TTL would blow every bound here.
 */
@BehaviourTest
class RedisLockWaitTest {

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
        name = Names.fresh("wait");
    }

    @AfterEach
    void tearDown() {
        holderClient.close();
        waiterClient.close();
        probe.close();
    }

    @Test
    void waiterInAnotherClientWakesLongBeforeTtlOnRelease() throws Exception {
        assertReleaseWakesPromptly(waiterClient);
    }

    @Test
    void waiterInTheSameClientWakesLongBeforeTtlOnRelease() throws Exception {
        // a waiter of the same client queues at the local gate, without subscribing, and is handed the turn on release
        RedisLock lock = holderClient.getLock(name);
        lock.lock();
        OtherThread<Long> waiter = OtherThread.start(() -> acquiredAt(lock, Duration.ofSeconds(25)));
        await().atMost(Duration.ofSeconds(5)).until(() -> holderClient.localWaiters() == 1);
        assertThat(holderClient.subscribedChannels()).isZero();

        long released = System.nanoTime();
        lock.unlock();

        assertThat(Duration.ofNanos(waiter.get() - released)).isLessThan(PROMPTLY);
    }

    @Test
    void waiterOfAClientThatHandsNothingOnLocallyWakesLongBeforeTtlOnRelease() throws Exception {
        try (LockClient plain = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().localHandOffs(0, Duration.ZERO).build())) {
            assertReleaseWakesPromptly(plain);
        }
    }

    @Test
    void aWaiterOfAClientThatHandsNothingOnLocallyIsRecordedAndTakesTheRecordBackWhenItGivesUp() throws Exception {
        try (LockClient plain = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().localHandOffs(0, Duration.ZERO).build())) {
            String lockKey =
                    LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).lock();
            RedisLock held = holderClient.getLock(name);
            held.lock();
            OtherThread<Boolean> quitter =
                    OtherThread.start(() -> plain.getLock(name).tryLock(Waits.RUNS_OUT));
            await().atMost(Duration.ofSeconds(5)).until(() -> probe.sync().hget(lockKey, "~w") != null);

            assertThat(quitter.get()).as("it gave up").isFalse();
            await().atMost(Duration.ofSeconds(5)).until(() -> probe.sync().hget(lockKey, "~w") == null);
            held.unlock();

            assertThat(probe.sync().exists(lockKey))
                    .as("freed, not reserved for a client that no longer waits")
                    .isZero();
        }
    }

    @Test
    void aWaiterThatGivesUpLeavesTheOthersWakeUpInPlace() throws Exception {
        // Two other clients wait: the first is recorded as the waiting client, the second only marks the
        // lock as waited for. The first gives up; the release must still wake the second.
        try (LockClient third = LockClient.create(RedisURI.create(redis.server().uri()))) {
            RedisLock held = holderClient.getLock(name);
            held.lock();
            OtherThread<Boolean> quitter =
                    OtherThread.start(() -> waiterClient.getLock(name).tryLock(Duration.ofSeconds(2)));
            await().atMost(Duration.ofSeconds(5)).until(() -> waiterClient.subscribedChannels() == 1);
            OtherThread<Long> stayer = OtherThread.start(() -> acquiredAt(third.getLock(name), Duration.ofSeconds(25)));
            await().atMost(Duration.ofSeconds(5)).until(() -> third.subscribedChannels() == 1);
            assertThat(quitter.get()).as("the first waiter gave up").isFalse();
            String lockKey =
                    LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).lock();
            // its client is no longer recorded as waiting
            await().atMost(Duration.ofSeconds(5)).until(() -> probe.sync().hget(lockKey, "~w") == null);

            long released = System.nanoTime();
            held.unlock();

            assertThat(Duration.ofNanos(stayer.get() - released)).isLessThan(PROMPTLY);
        }
    }

    @Test
    void anUncontendedReleasePublishesNothing() throws Exception {
        long before = Settled.value(RedisLockWaitTest::publishes);
        RedisLock lock = holderClient.getLock(name);
        for (int i = 0; i < 50; i++) {
            lock.lock();
            lock.unlock();
        }
        assertThat(publishes()).as("PUBLISH calls").isEqualTo(before);

        // and a contended one does: a waiter of another client wakes
        lock.lock();
        OtherThread<Long> waiter =
                OtherThread.start(() -> acquiredAt(waiterClient.getLock(name), Duration.ofSeconds(25)));
        await().atMost(Duration.ofSeconds(5)).until(() -> waiterClient.subscribedChannels() == 1);
        lock.unlock();
        waiter.get();
        assertThat(publishes()).isGreaterThan(before);
    }

    /** holderClient takes the lock and {@code waiters} waits for it: the release wakes it long before the lease ends. */
    private void assertReleaseWakesPromptly(LockClient waiters) throws Exception {
        RedisLock held = holderClient.getLock(name);
        held.lock();
        OtherThread<Long> waiter = OtherThread.start(() -> acquiredAt(waiters.getLock(name), Duration.ofSeconds(25)));
        await().atMost(Duration.ofSeconds(5)).until(() -> waiters.subscribedChannels() == 1);

        long released = System.nanoTime();
        held.unlock();

        assertThat(Duration.ofNanos(waiter.get() - released)).isLessThan(PROMPTLY);
    }

    /** PUBLISH calls Redis has run so far, inside scripts included. */
    private static long publishes() {
        return redis.server()
                .query("INFO", "commandstats")
                .lines()
                .filter(l -> l.startsWith("cmdstat_publish:"))
                .map(l -> Long.parseLong(l.substring("cmdstat_publish:calls=".length(), l.indexOf(','))))
                .findFirst()
                .orElse(0L);
    }

    @Test
    void forceUnlockWakesAWaiterOfAnotherClient() throws Exception {
        holderClient.getLock(name).lock();
        OtherThread<Long> waiter =
                OtherThread.start(() -> acquiredAt(waiterClient.getLock(name), Duration.ofSeconds(25)));
        await().atMost(Duration.ofSeconds(5)).until(() -> waiterClient.subscribedChannels() == 1);

        long released = System.nanoTime();
        try (LockClient operator =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            assertThat(operator.getLock(name).forceUnlock()).isTrue();
        }

        assertThat(Duration.ofNanos(waiter.get() - released)).isLessThan(PROMPTLY);
    }

    @Test
    void everyWaiterGetsTheLockInTurnWithoutWaitingForTtl() throws Exception {
        RedisLock first = holderClient.getLock(name);
        first.lock();
        List<OtherThread<Long>> waiters = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            LockClient client = i % 2 == 0 ? holderClient : waiterClient;
            waiters.add(OtherThread.start(() -> acquiredAt(client.getLock(name), Duration.ofSeconds(25))));
        }
        // holderClient's three queue locally behind the holder; waiterClient's first waits in Redis, two queue locally
        await().atMost(Duration.ofSeconds(5))
                .until(() -> holderClient.localWaiters() == 3
                        && waiterClient.subscribedChannels() == 1
                        && waiterClient.localWaiters() == 2);

        long released = System.nanoTime();
        first.unlock();

        for (OtherThread<Long> waiter : waiters) {
            // each waiter holds only for a moment, so all six finish long before one TTL
            assertThat(Duration.ofNanos(waiter.get() - released)).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void waiterTakesALockWhoseLeaseRanOutPromptly() throws Exception {
        // Expiry publishes nothing: the waiter must come back when the TTL it was told has passed,
        // including when Redis reports the last millisecond of the lease as a PTTL of 0.
        for (int i = 0; i < 40; i++) {
            String lockName = name + "-" + i;
            Duration lease = Duration.ofMillis(20 + i % 10);
            holderClient.getLock(lockName).lock(lease);
            RedisLock lock = waiterClient.getLock(lockName);

            long start = System.nanoTime();
            boolean acquired = lock.tryLock(Duration.ofSeconds(20));
            Duration waited = Duration.ofNanos(System.nanoTime() - start);

            assertThat(acquired).isTrue();
            assertThat(waited).as("round %d, lease %s", i, lease).isLessThan(lease.plus(PROMPTLY));
            lock.unlock();
        }
    }

    @Test
    void tryLockGivesUpAfterWaitTimeLongBeforeTheHoldersTtl() throws Exception {
        holderClient.getLock(name).lock();
        RedisLock lock = waiterClient.getLock(name);

        long start = System.nanoTime();
        boolean acquired = lock.tryLock(Waits.RUNS_OUT);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);

        assertThat(acquired).isFalse();
        assertThat(waited).isGreaterThanOrEqualTo(Waits.RUNS_OUT).isLessThan(Waits.RUNS_OUT.plusSeconds(5));
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void tryLockWithTimeUnitGivesUpAfterWaitTime() throws Exception {
        holderClient.getLock(name).lock();
        RedisLock lock = waiterClient.getLock(name);

        long start = System.nanoTime();
        boolean acquired = lock.tryLock(Waits.RUNS_OUT.toMillis(), TimeUnit.MILLISECONDS);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);

        assertThat(acquired).isFalse();
        assertThat(waited).isGreaterThanOrEqualTo(Waits.RUNS_OUT).isLessThan(Waits.RUNS_OUT.plusSeconds(5));
    }

    @Test
    void tryLockWithoutWaitIsASingleAttempt() {
        holderClient.getLock(name).lock();
        RedisLock lock = waiterClient.getLock(name);

        long start = System.nanoTime();
        boolean acquired = tryOnce(lock);

        assertThat(acquired).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(waiterClient.subscribedChannels())
                .as("a single attempt never subscribes")
                .isZero();
    }

    @Test
    void nonPositiveTimeUnitWaitIsASingleAttempt() throws Exception {
        RedisLock lock = waiterClient.getLock(name);

        assertThat(answered(() -> lock.tryLock(-5, TimeUnit.SECONDS))).isTrue();
        lock.unlock();
        holderClient.getLock(name).lock();
        long start = System.nanoTime();
        assertThat(answered(() -> lock.tryLock(0, TimeUnit.SECONDS))).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void tryLockWithAnEndlessTimeUnitWaitWaitsForTheLock() throws Exception {
        // tryLock(Long.MAX_VALUE, unit) is the usual "wait for ever" idiom of java.util.concurrent
        RedisLock held = holderClient.getLock(name);
        held.lock();
        OtherThread<Boolean> waiter = OtherThread.start(() -> {
            RedisLock lock = waiterClient.getLock(name);
            boolean acquired = lock.tryLock(Long.MAX_VALUE, TimeUnit.MILLISECONDS);
            if (acquired) {
                lock.unlock();
            }
            return acquired;
        });
        await().atMost(Duration.ofSeconds(5))
                .until(() -> waiter.result.isDone() || waiterClient.subscribedChannels() == 1);

        held.unlock();

        assertThat(waiter.get()).isTrue();
    }

    @Test
    void noChannelStaysSubscribedAfterWaitsEnd() throws Exception {
        RedisLock held = holderClient.getLock(name);
        held.lock();
        RedisLock other = holderClient.getLock(name + "-other");
        other.lock();

        // waits that time out
        List<OtherThread<Boolean>> timeouts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            timeouts.add(OtherThread.start(() -> waiterClient.getLock(name).tryLock(Waits.RUNS_OUT)));
            timeouts.add(OtherThread.start(
                    () -> waiterClient.getLock(name + "-other").tryLock(Waits.RUNS_OUT)));
        }
        for (OtherThread<Boolean> t : timeouts) {
            assertThat(t.get()).isFalse();
        }
        // waits that succeed
        OtherThread<Long> success =
                OtherThread.start(() -> acquiredAt(waiterClient.getLock(name), Duration.ofSeconds(25)));
        await().atMost(Duration.ofSeconds(5)).until(() -> waiterClient.subscribedChannels() == 1);
        held.unlock();
        success.get();
        other.unlock();

        assertThat(waiterClient.subscribedChannels()).isZero();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> probe.sync().pubsubChannels("lock:*").isEmpty());
    }

    /** Waits for {@code lock}, holds it very briefly and returns when it was granted. */
    private static long acquiredAt(RedisLock lock, Duration wait) throws InterruptedException {
        if (!lock.tryLock(wait)) {
            throw new AssertionError("not acquired within " + wait);
        }
        long at = System.nanoTime();
        lock.unlock();
        return at;
    }
}
