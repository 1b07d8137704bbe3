package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A hold lost while its owner still runs (deleted, force-unlocked, explicit lease run out) is
 * reported once to listeners, no longer counts as held, and makes unlock() say so loudly.
 */
@BehaviourTest
class RedisLockLeaseLostTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /**
     * The watchdog ticks every third of this, so a loss is noticed within a second; and a renewal a loaded
     * host sends a second late still lands in time, so no hold here is lost but the ones the tests take away.
     */
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(2);

    /** How long a loss may take to be reported: the next renewal's, on a host however busy. */
    private static final Duration NOTICED = WATCHDOG_LEASE.plus(Waits.GRANTED);

    /** Explicit leases that run out here while their holder still runs. */
    private static final Duration EXPLICIT_LEASE = Duration.ofSeconds(1);

    private final RecordingListener events = new RecordingListener();
    private LockClient client;
    private LockClient operatorClient;
    private RedisProbe probe;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        .watchdogLease(WATCHDOG_LEASE)
                        .listener(events)
                        .build());
        operatorClient = LockClient.create(RedisURI.create(redis.server().uri()));
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("lost");
    }

    @AfterEach
    void tearDown() {
        client.close();
        operatorClient.close();
        probe.close();
    }

    @Test
    void forceUnlockFromElsewhereIsReportedAsLeaseLostExactlyOnce() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();

        assertThat(operatorClient.getLock(name).forceUnlock()).isTrue();

        await().atMost(NOTICED).until(() -> events.leaseLosses(name).size() == 1);
        assertThat(events.renewals(name, RenewalOutcome.LOST)).hasSize(1);
        assertLostHoldBehaves(lock);
        // several more watchdog rounds and the unlock above must not report it again
        await().during(WATCHDOG_LEASE.multipliedBy(2))
                .atMost(WATCHDOG_LEASE.multipliedBy(2).plus(Waits.GRANTED))
                .until(() -> events.leaseLosses(name).size() == 1);
    }

    @Test
    void deletedKeyIsReportedAsLeaseLost() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();

        probe.sync().del("lock:{" + name + "}");

        await().atMost(NOTICED).until(() -> events.leaseLosses(name).size() == 1);
        assertThat(events.leaseLosses(name).get(0).reason()).contains("renewal");
        assertLostHoldBehaves(lock);
        assertThat(events.leaseLosses(name)).hasSize(1);
    }

    @Test
    void lockTakenOverByAnotherOwnerIsReportedAsLostAndUnlockLeavesTheNewOwnerAlone() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        RedisLock newOwner = operatorClient.getLock(name);
        operatorClient.getLock(name).forceUnlock();
        assertThat(tryOnce(newOwner)).isTrue();

        await().atMost(NOTICED).until(() -> events.leaseLosses(name).size() == 1);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLeaseExpiredException.class);

        assertThat(newOwner.isHeldByCurrentThread()).isTrue();
        assertThat(newOwner.isLocked()).isTrue();
        newOwner.unlock();
    }

    @Test
    void explicitLeaseThatRunsOutBeforeUnlockMakesUnlockThrowAndIsReported() throws Exception {
        try (LockClient slowWatchdog = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().listener(events).build())) {
            RedisLock lock = slowWatchdog.getLock(name);
            // long enough that the token is read before it runs out, however late this thread runs on
            lock.lock(EXPLICIT_LEASE);
            long token = lock.currentFencingToken();
            await().atMost(EXPLICIT_LEASE.plus(Waits.GRANTED)).until(() -> !lock.isLocked());
            // polled on this thread, the owner; the client's own estimate of the lease may trail Redis by a reply
            await().pollInSameThread().atMost(Waits.GRANTED).until(() -> !lock.isHeldByCurrentThread());

            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining(EXPLICIT_LEASE.toMillis() + " ms")
                    .satisfies(e -> assertThat(((LockLeaseExpiredException) e).getLockName())
                            .isEqualTo(name));
            assertThat(events.leaseLosses(name)).hasSize(1);
            assertThat(lock.getHoldCount()).isZero();
            // the lock is usable again, with a newer token
            lock.lock();
            assertThat(lock.currentFencingToken()).isGreaterThan(token);
            lock.unlock();
        }
    }

    @Test
    void watchdogReportsAnExplicitLeaseRunningOutBeforeTheHolderUnlocks() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock(Duration.ofMillis(200));

        await().atMost(NOTICED).until(() -> events.leaseLosses(name).size() == 1);
        assertThat(events.leaseLosses(name).get(0).reason()).contains("200 ms");
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLeaseExpiredException.class);
        assertThat(events.leaseLosses(name)).hasSize(1);
    }

    @Test
    void lostReentrantHoldMakesEveryUnlockThrowUntilItIsGone() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        lock.lock();

        operatorClient.getLock(name).forceUnlock();
        await().atMost(NOTICED).until(() -> events.leaseLosses(name).size() == 1);

        assertThatThrownBy(lock::unlock).isInstanceOf(LockLeaseExpiredException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLeaseExpiredException.class);
        assertThatThrownBy(lock::unlock)
                .isNotInstanceOf(LockLeaseExpiredException.class)
                .isInstanceOf(IllegalMonitorStateException.class);
        assertThat(events.leaseLosses(name)).hasSize(1);
    }

    @Test
    void unlockingALostHoldNeverReleasesTheSameThreadsNextHold() throws Exception {
        // The release of a lost hold carries the same owner id as the thread's next hold. Whatever
        // order Redis sees the two in (here the release needs the EVAL fallback after NOSCRIPT while
        // the acquire script is cached), the old release must not delete the new hold.
        RedisLock lock = client.getLock(name);
        CountDownLatch lost = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        AtomicBoolean unlocking = new AtomicBoolean();
        OtherThread<String> owner = OtherThread.start(() -> {
            lock.lock();
            lost.countDown();
            go.await();
            unlocking.set(true);
            Throwable unlockError = catchThrowable(lock::unlock);
            lock.lock();
            boolean held = lock.isHeldByCurrentThread() && lock.isLocked();
            Throwable secondUnlockError = catchThrowable(lock::unlock);
            return unlockError.getClass().getSimpleName() + " " + held + " " + secondUnlockError;
        });
        assertThat(lost.await(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS)).isTrue();
        operatorClient.getLock(name).forceUnlock();
        await().atMost(NOTICED).until(() -> events.leaseLosses(name).size() == 1);
        probe.sync().scriptFlush();
        probe.sync().scriptLoad(LockScript.ACQUIRE.body());

        redis.server().pause(); // both commands queue up unanswered
        try {
            go.countDown();
            await().atMost(Waits.GRANTED)
                    .until(() -> unlocking.get()
                            && (owner.thread.getState() == Thread.State.WAITING
                                    || owner.thread.getState()
                                            == Thread.State.TIMED_WAITING)); // Redis calls are bounded now
        } finally {
            redis.server().resume();
        }

        assertThat(owner.get()).isEqualTo("LockLeaseExpiredException true null");
        assertThat(events.leaseLosses(name)).as("the new hold was never lost").hasSize(1);
    }

    private void assertLostHoldBehaves(RedisLock lock) {
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThatThrownBy(lock::currentFencingToken).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(client.activeHolds()).isZero();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LockLeaseExpiredException.class)
                .hasMessageContaining(name);
        // the hold is gone now: the thread can take the lock again and release it normally
        lock.lock();
        lock.unlock();
    }
}
