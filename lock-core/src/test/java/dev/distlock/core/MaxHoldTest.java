package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LockClientOptions.Builder#maxHold}: a holder that runs past it is told it lost the lock (its own
 * reason, listeners, the handle, unlock), the watchdog stops renewing it so another owner gets the lock
 * within a lease, the long-hold warning comes first and once, and a hold released in time is not touched;
 * {@link LockClient#withMaxHold} caps the locks of its view only.
 */
@BehaviourTest
class MaxHoldTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration MAX_HOLD = Duration.ofSeconds(2);
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(3);

    private final RecordingListener events = new RecordingListener();
    private LockClient client;
    private LockClient other;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        .watchdogLease(WATCHDOG_LEASE)
                        .maxHold(MAX_HOLD, 0.5)
                        .listener(events)
                        .build());
        other = LockClient.create(RedisURI.create(redis.server().uri()));
        name = Names.fresh("max-hold");
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    @Test
    void aHolderThatRunsPastMaxHoldIsToldAndAnotherOwnerGetsTheLockWithinALease() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();

        await().atMost(Waits.GRANTED).until(() -> !events.leaseLosses(name).isEmpty());

        assertThat(events.leaseLosses(name))
                .singleElement()
                .satisfies(l -> assertThat(l.reason()).contains("maxHold"));
        assertThat(events.longHolds).singleElement().satisfies(l -> {
            assertThat(l.lock().key()).isEqualTo(name);
            assertThat(l.heldFor()).isGreaterThanOrEqualTo(MAX_HOLD.dividedBy(2));
        });
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        RedisLock theirs = other.getLock(name);
        assertThat(theirs.tryLock(WATCHDOG_LEASE.plus(Waits.GRANTED)))
                .as("no longer renewed")
                .isTrue();
        theirs.unlock();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLeaseExpiredException.class);
    }

    @Test
    void aHandleIsToldToo() throws Exception {
        LockHandle handle =
                client.getLock(name).lockAsync().toCompletableFuture().get(30, TimeUnit.SECONDS);

        String reason = handle.leaseLost().toCompletableFuture().get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);

        assertThat(reason).contains("maxHold");
        assertThat(handle.isHeld()).isFalse();
        assertThatThrownBy(handle::unlock).isInstanceOf(LockLeaseExpiredException.class);
    }

    @Test
    void aHoldReleasedInTimeIsNeitherWarnedAboutNorLost() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        lock.unlock();
        RedisLock renewedPastALease = client.getLock(Names.fresh("fixed"));
        assertThat(renewedPastALease.tryLock(Duration.ZERO, Duration.ofSeconds(60)))
                .isTrue();

        // a fixed lease is the holder's own cap: maxHold applies to watchdog leases only
        Thread.sleep(MAX_HOLD.toMillis() + 500);
        assertThat(renewedPastALease.isHeldByCurrentThread()).isTrue();
        renewedPastALease.unlock();
        assertThat(events.leaseLosses).isEmpty();
        assertThat(events.longHolds).isEmpty();
    }

    @Test
    void aLeadershipIsNotCapped() throws Exception {
        try (LeaderCandidate candidate = client.leader(name)) {
            candidate.start();
            await().atMost(Waits.GRANTED).until(candidate::isLeader);
            long term = candidate.term().orElseThrow();

            // two caps and more: a capped lock would have been lost by now
            Thread.sleep(MAX_HOLD.multipliedBy(2).plusMillis(500).toMillis());

            assertThat(candidate.isLeader()).isTrue();
            assertThat(candidate.term()).hasValue(term);
            assertThat(events.leaseLosses).isEmpty();
        }
    }

    @Test
    void aWithMaxHoldViewCapsItsOwnLocksOnly() throws Exception {
        RecordingListener seen = new RecordingListener();
        try (LockClient uncapped = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        .watchdogLease(WATCHDOG_LEASE)
                        .longHoldWarning(0.5)
                        .listener(seen)
                        .build())) {
            RedisLock capped = uncapped.timedByCaller().withMaxHold(MAX_HOLD).getLock(name);
            String freeName = Names.fresh("not-capped");
            RedisLock free = uncapped.getLock(freeName);
            capped.lock();
            free.lock();

            await().atMost(Waits.GRANTED).until(() -> !seen.leaseLosses(name).isEmpty());
            assertThat(seen.leaseLosses(name))
                    .singleElement()
                    .satisfies(l -> assertThat(l.reason()).contains("maxHold (2000 ms)"));
            assertThat(seen.longHolds).singleElement().satisfies(l -> {
                assertThat(l.lock().key()).isEqualTo(name);
                assertThat(l.lock().timedByCaller())
                        .as("the view keeps the view it came from")
                        .isTrue();
                assertThat(l.lock().maxHold()).isEqualTo(MAX_HOLD);
            });
            assertThatThrownBy(capped::unlock).isInstanceOf(LockLeaseExpiredException.class);

            // one more renewal period: the client's own lock, taken with the capped one, is renewed on
            Thread.sleep(WATCHDOG_LEASE.dividedBy(3).toMillis());
            assertThat(free.isHeldByCurrentThread()).isTrue();
            assertThat(seen.leaseLosses(freeName)).isEmpty();
            free.unlock();
        }
    }

    @Test
    void badSettingsAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> client.withMaxHold(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxHold");
        assertThatThrownBy(() -> LockClientOptions.builder().longHoldWarning(1.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("long-hold warning");
        assertThatThrownBy(() -> LockClientOptions.builder().maxHold(Duration.ZERO, 0.8))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxHold");
        assertThatThrownBy(() -> LockClientOptions.builder().maxHold(MAX_HOLD, 1.0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("warnAt");
    }
}
