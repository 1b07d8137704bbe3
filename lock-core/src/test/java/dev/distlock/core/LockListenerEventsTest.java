package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.AcquireOutcome;
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

/** The events a LockListener sees, with the durations they carry. */
@BehaviourTest
class LockListenerEventsTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final RecordingListener events = new RecordingListener();
    private LockClient client;
    private LockClient holderClient;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        // renewed every lease/3; long enough that a loaded host's late renewal still lands
                        // in time: no test here may lose a hold
                        .watchdogLease(Duration.ofSeconds(2))
                        .listener(events)
                        .build());
        holderClient = LockClient.create(RedisURI.create(redis.server().uri()));
        name = Names.fresh("events");
    }

    @AfterEach
    void tearDown() {
        client.close();
        holderClient.close();
    }

    @Test
    void acquiredIsReportedOnceWithTheTimeWaitedAndReentryIsNotReported() throws Exception {
        RedisLock held = holderClient.getLock(name);
        held.lock();
        RedisLock lock = client.getLock(name);
        OtherThread<Void> waiter = OtherThread.start(() -> {
            lock.lock();
            lock.lock();
            lock.unlock();
            lock.unlock();
            return null;
        });
        await().atMost(Waits.GRANTED).until(() -> client.subscribedChannels() == 1);
        long waitingSince = System.nanoTime(); // the waiter started before this
        Thread.sleep(300); // the holder keeps the lock a while longer
        Duration atLeastWaited = Duration.ofNanos(System.nanoTime() - waitingSince);

        held.unlock();
        waiter.get();

        assertThat(events.acquires(name)).hasSize(1);
        RecordingListener.Acquire acquired = events.acquires(name).get(0);
        assertThat(acquired.outcome()).isEqualTo(AcquireOutcome.ACQUIRED);
        assertThat(acquired.waited()).isGreaterThanOrEqualTo(atLeastWaited).isLessThan(Duration.ofSeconds(10));
        assertThat(acquired.lock()).isEqualTo(new LockInfo(name, name, LockType.REENTRANT));
    }

    @Test
    void locksOfATimedByCallerViewSaySoInTheirEventsAndShareTheClientsHolds() throws Exception {
        LockClient timed = client.timedByCaller();
        assertThat(timed.timedByCaller()).isSameAs(timed);
        RedisLock direct = client.getLock(name, "direct");
        RedisLock viaView = timed.getLock(name + ":v", "timed");

        direct.lock();
        viaView.lock();
        assertThat(client.activeHolds()).as("one engine, one table of holds").isEqualTo(2);
        viaView.unlock();
        direct.unlock();
        try (LockHandle multi = timed.getMultiLock(java.util.List.of(name + ":a", name + ":b"), "timed")
                .lockAsync()
                .toCompletableFuture()
                .get()) {
            assertThat(timed.activeHolds()).isEqualTo(2);
        }

        assertThat(events.acquires(name))
                .singleElement()
                .satisfies(e -> assertThat(e.lock().timedByCaller()).isFalse());
        assertThat(events.acquires(name + ":v"))
                .singleElement()
                .satisfies(e ->
                        assertThat(e.lock()).isEqualTo(new LockInfo(name + ":v", "timed", LockType.REENTRANT, true)));
        assertThat(events.acquires(name + ":a"))
                .singleElement()
                .satisfies(e -> assertThat(e.lock().timedByCaller()).isTrue());
    }

    @Test
    void uncontendedAcquireReportsAShortWait() {
        RedisLock lock = client.getLock(name);

        long before = System.nanoTime();
        lock.lock();
        Duration call = Duration.ofNanos(System.nanoTime() - before);
        lock.unlock();

        // no more than the call took (a fixed bound would be a loaded host's to break)
        assertThat(events.acquires(name)).singleElement().satisfies(e -> {
            assertThat(e.outcome()).isEqualTo(AcquireOutcome.ACQUIRED);
            assertThat(e.waited()).isLessThanOrEqualTo(call);
        });
    }

    @Test
    void timeoutIsReportedWithTheTimeWaited() throws Exception {
        holderClient.getLock(name).lock();

        assertThat(client.getLock(name).tryLock(Waits.RUNS_OUT)).isFalse();
        assertThat(tryOnce(client.getLock(name))).isFalse();

        // a try without a wait that Redis did not answer in time reports UNAVAILABLE and is sent again (Attempts)
        assertThat(events.acquires(name))
                .extracting(RecordingListener.Acquire::outcome)
                .filteredOn(outcome -> outcome != AcquireOutcome.UNAVAILABLE)
                .containsExactly(AcquireOutcome.TIMEOUT, AcquireOutcome.TIMEOUT);
        assertThat(events.acquires(name).get(0).waited())
                .isGreaterThanOrEqualTo(Waits.RUNS_OUT)
                .isLessThan(Waits.RUNS_OUT.plusSeconds(3));
    }

    @Test
    void releaseIsReportedOnceAtTheLastUnlockWithTheTimeHeld() throws Exception {
        RedisLock lock = client.getLock(name);
        long before = System.nanoTime();
        lock.lock();
        lock.lock();
        lock.unlock();
        assertThat(events.releases(name)).isEmpty();
        Thread.sleep(250); // work while holding
        lock.unlock();
        Duration atMostHeld = Duration.ofNanos(System.nanoTime() - before);

        assertThat(events.releases(name))
                .singleElement()
                .satisfies(e -> assertThat(e.held())
                        .isGreaterThanOrEqualTo(Duration.ofMillis(250))
                        .isLessThanOrEqualTo(atMostHeld));
    }

    @Test
    void renewalsAreReportedWhileTheWatchdogKeepsTheLock() {
        RedisLock lock = client.getLock(name);
        lock.lock();

        await().atMost(Waits.GRANTED)
                .until(() -> events.renewals(name, RenewalOutcome.RENEWED).size() >= 3);
        lock.unlock();

        assertThat(events.renewals)
                .extracting(RecordingListener.Renewal::outcome)
                .containsOnly(RenewalOutcome.RENEWED);
        assertThat(events.leaseLosses).isEmpty();
    }

    @Test
    void eventsCarryTheLabelGivenForTheLock() {
        RedisLock lock = client.getLock(name, "OrderService.pay");

        lock.lock();
        lock.unlock();

        assertThat(events.acquires(name))
                .singleElement()
                .satisfies(e ->
                        assertThat(e.lock()).isEqualTo(new LockInfo(name, "OrderService.pay", LockType.REENTRANT)));
        assertThat(events.releases(name))
                .singleElement()
                .satisfies(e -> assertThat(e.lock().name()).isEqualTo("OrderService.pay"));
    }

    @Test
    void aFailingListenerDoesNotBreakLockingOrOtherListeners() {
        RecordingListener after = new RecordingListener();
        LockListener failing = new LockListener() {
            @Override
            public void onAcquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {
                throw new IllegalStateException("listener bug");
            }

            @Override
            public void onRelease(LockInfo lock, Duration held) {
                throw new IllegalStateException("listener bug");
            }
        };
        try (LockClient withFailing = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().listener(failing).listener(after).build())) {
            RedisLock lock = withFailing.getLock(name);

            lock.lock();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            lock.unlock();

            assertThat(lock.isLocked()).isFalse();
            assertThat(after.acquires(name)).hasSize(1);
            assertThat(after.releases(name)).hasSize(1);
        }
    }

    @Test
    void anAsyncTimeoutIsReportedBeforeItsCallerLearnsOfIt() throws Exception {
        RedisLock held = holderClient.getLock(name);
        held.lock();
        // A listener that takes its time over the timeout: the caller's result must wait for it.
        java.util.List<AcquireOutcome> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        LockListener slow = new LockListener() {
            @Override
            public void onAcquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                heard.add(outcome);
            }
        };
        try (LockClient slowClient = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().listener(slow).build())) {
            RedisLock lock = slowClient.getLock(name);
            for (Duration wait : new Duration[] {Duration.ZERO, Duration.ofMillis(100)}) {
                heard.clear();
                assertThat(lock.tryLockAsync(wait).toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS))
                        .as("busy for a wait of %s", wait)
                        .isEmpty();
                assertThat(heard).as("told before the caller, wait %s", wait).containsExactly(AcquireOutcome.TIMEOUT);
            }
        } finally {
            held.unlock();
        }
    }
}
