package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.answered;
import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.testing.Exclusion;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Async handles queue at the instance's local gate with its threads: a handle takes its turn in
 * arrival order, is handed a grant (and hands one on) without a round trip, and leaving the queue
 * (cancelled, timed out) never keeps the permit from the next waiter.
 */
@BehaviourTest
class HandlesAtLocalGateTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private RedisServer server;
    private LockClient client;
    private LockClient otherInstance;
    private RedisProbe probe;
    private RecordingListener events;
    private String name;

    @BeforeEach
    void setUp() {
        server = redis.startAnother(); // its own server: the script counts are this test's alone
        events = new RecordingListener();
        // A hand-off window long enough for a test to see a waiter queue before the release.
        client = LockClient.create(
                RedisURI.create(server.uri()),
                LockClientOptions.builder()
                        .localHandOffs(LockClientOptions.DEFAULT_LOCAL_HAND_OFFS, Duration.ofSeconds(10))
                        .listener(events)
                        .build());
        otherInstance = LockClient.create(RedisURI.create(server.uri()));
        probe = RedisProbe.connect(server);
        name = Names.fresh("gate-handle");
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherInstance.close();
        probe.close();
    }

    private boolean lockedInRedis() {
        return probe.sync().exists("lock:{" + name + "}") > 0;
    }

    @Test
    void aHandleQueuesBehindAThreadAndTheGrantPassesBetweenThemWithoutARoundTrip() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        long threadToken = lock.currentFencingToken();
        CompletableFuture<Optional<LockHandle>> waiting =
                lock.tryLockAsync(Duration.ofSeconds(10)).toCompletableFuture();
        await().atMost(Duration.ofSeconds(5)).until(() -> client.localWaiters() == 1);
        assertThat(waiting).isNotDone();
        long callsBefore = probe.scriptRuns();

        lock.unlock();
        LockHandle handle = waiting.get(5, TimeUnit.SECONDS).orElseThrow();
        assertThat(handle.fencingToken()).as("the next token of the same grant").isEqualTo(threadToken + 1);
        assertThat(handle.isHeld()).isTrue();

        OtherThread<Long> thread = OtherThread.start(() -> {
            lock.lock();
            try {
                return lock.currentFencingToken();
            } finally {
                lock.unlock();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> client.localWaiters() == 1);
        assertThat(tryOnce(otherInstance.getLock(name)))
                .as("kept from other instances")
                .isFalse();
        handle.unlockAsync().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(thread.get()).as("handed on to the thread").isEqualTo(threadToken + 2);

        // The thread's last release is the only script call (the other instance's try aside).
        assertThat(probe.scriptRuns() - callsBefore).isEqualTo(2);
        assertThat(lockedInRedis()).isFalse();
        await().atMost(Waits.GRANTED)
                .untilAsserted(() -> assertThat(client.localGates()).isZero());
        assertThat(events.acquires(name))
                .extracting(RecordingListener.Acquire::outcome)
                .containsOnly(AcquireOutcome.ACQUIRED)
                .hasSize(3);
        assertThat(events.releases(name)).hasSize(3);
    }

    @Test
    void aHandleCancelledInTheQueueLeavesItAndTheNextWaiterGetsTheLock() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        CompletableFuture<Optional<LockHandle>> cancelled =
                lock.tryLockAsync(Duration.ofSeconds(30)).toCompletableFuture();
        await().atMost(Duration.ofSeconds(5)).until(() -> client.localWaiters() == 1);
        OtherThread<Boolean> next = OtherThread.start(() -> {
            boolean got = lock.tryLock(Duration.ofSeconds(30));
            if (got) {
                lock.unlock();
            }
            return got;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> client.localWaiters() == 2);

        assertThat(cancelled.cancel(true)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> client.localWaiters() == 1);
        lock.unlock();

        assertThat(next.get()).as("the thread behind the cancelled handle").isTrue();
        assertThat(lockedInRedis()).isFalse();
        await().atMost(Waits.GRANTED)
                .untilAsserted(() -> assertThat(client.localGates()).isZero());
    }

    @Test
    void aHandleWhoseWaitRunsOutAtTheGateCompletesEmptyAndLeavesNothingBehind() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        try {
            assertThat(lock.tryLockAsync(Waits.RUNS_OUT).toCompletableFuture().get(5, TimeUnit.SECONDS))
                    .isEmpty();
            assertThat(lock.tryLockAsync(Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS))
                    .as("no wait at all")
                    .isEmpty();
            await().atMost(Waits.GRANTED)
                    .untilAsserted(() -> assertThat(client.localWaiters()).isZero());
        } finally {
            lock.unlock();
        }
        assertThat(events.acquires(name))
                .extracting(RecordingListener.Acquire::outcome)
                .containsExactly(AcquireOutcome.ACQUIRED, AcquireOutcome.TIMEOUT, AcquireOutcome.TIMEOUT);
        await().atMost(Waits.GRANTED)
                .untilAsserted(() -> assertThat(client.localGates()).isZero());
        LockHandle after = answered(() ->
                        lock.tryLockAsync(Duration.ZERO).toCompletableFuture().get(5, TimeUnit.SECONDS))
                .orElseThrow();
        after.unlock();
    }

    @Test
    void aHandleGoesPastAThreadWhoseLeaseRanOutWithoutUnlocking() throws Exception {
        RedisLock lock = client.getLock(name);
        Duration lease = Duration.ofMillis(500); // short: it must run out, nothing asserts it held
        OtherThread.call(() -> {
            lock.lock(lease); // never unlocked: its thread ends
            return null;
        });
        long start = System.nanoTime();
        LockHandle handle = lock.tryLockAsync(Waits.GRANTED)
                .toCompletableFuture()
                .get(Waits.GRANTED.toSeconds() + 5, TimeUnit.SECONDS)
                .orElseThrow(() -> new AssertionError("not acquired after the abandoned lease"));
        // about the lease; a handle that waited behind the abandoned hold would take the whole wait
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(lease.plusSeconds(5));
        handle.unlock();
    }

    @Test
    void closingTheClientFailsHandlesWaitingAtTheGateAtOnce() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        CompletableFuture<Optional<LockHandle>> waiting =
                lock.tryLockAsync(Duration.ofSeconds(30)).toCompletableFuture();
        await().atMost(Duration.ofSeconds(5)).until(() -> client.localWaiters() == 1);

        client.close();

        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockException.class)
                .hasMessageContaining("closed");
        await().atMost(Waits.GRANTED)
                .untilAsserted(() -> assertThat(client.localWaiters()).isZero());
    }

    /**
     * The case that kept cohorting off by default: an instance's threads pass the lock among themselves
     * and to another instance in turn, while a handle of the same instance waits. Queued with the
     * threads, the handle gets its turn; before, it could only find the lock free in Redis, and lost
     * that race for its whole wait.
     */
    @Test
    void handlesTakeTheirTurnWhileThreadsOfTheirInstanceAndAnotherPassTheLock() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        Exclusion exclusion = new Exclusion();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> churners = new ArrayList<>();
        int handles = 0;
        try {
            for (int t = 0; t < 6; t++) {
                churners.add(pool.submit(exclusion.churn((t < 4 ? client : otherInstance).getLock(name), stop)));
            }
            RedisLock lock = client.getLock(name);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            while (System.nanoTime() < until) {
                Optional<LockHandle> got = lock.tryLockAsync(Duration.ofSeconds(10))
                        .toCompletableFuture()
                        .get(20, TimeUnit.SECONDS);
                assertThat(got).as("handle %d within its 10 s wait", handles).isPresent();
                try {
                    exclusion.pass();
                } finally {
                    got.get().unlockAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
                }
                handles++;
            }
        } finally {
            stop.set(true);
            pool.shutdown();
        }
        for (Future<?> churner : churners) {
            churner.get(30, TimeUnit.SECONDS); // rethrows a lost lease
        }
        assertThat(exclusion.overlaps()).isZero();
        assertThat(handles).isPositive();
        assertThat(events.leaseLosses(name)).isEmpty();
    }

    /**
     * Handles cancelled at random moments (queued, holding the permit while trying in Redis, or just
     * handed a grant) while threads churn: whatever a cancelled handle was given passes on, so the
     * gate is never left taken by nobody, and nothing stays locked in Redis.
     */
    @Test
    void handlesCancelledAtAnyMomentNeverStrandThePermitOrTheGrant() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        Exclusion exclusion = new Exclusion();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Future<?>> churners = new ArrayList<>();
        RedisLock lock = client.getLock(name);
        try {
            for (int t = 0; t < 3; t++) {
                churners.add(pool.submit(exclusion.churn(lock, stop)));
            }
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            while (System.nanoTime() < until) {
                List<CompletableFuture<Optional<LockHandle>>> batch = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    batch.add(lock.tryLockAsync(Duration.ofSeconds(10)).toCompletableFuture());
                }
                TimeUnit.MICROSECONDS.sleep(ThreadLocalRandom.current().nextInt(2_000));
                for (CompletableFuture<Optional<LockHandle>> f : batch) {
                    if (!f.cancel(true)) {
                        f.join().ifPresent(LockHandle::unlock); // it got the lock before the cancel
                    }
                }
            }
        } finally {
            stop.set(true);
            pool.shutdown();
        }
        for (Future<?> churner : churners) {
            churner.get(30, TimeUnit.SECONDS);
        }
        assertThat(exclusion.overlaps()).isZero();
        // Grants of cancelled handles are given back in the background: soon nothing is left.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            await().atMost(Waits.GRANTED)
                    .untilAsserted(() -> assertThat(client.localGates()).isZero());
            assertThat(lockedInRedis()).isFalse();
        });
        assertThat(tryOnce(lock)).as("free at once, locally and in Redis").isTrue();
        lock.unlock();
        assertThat(events.acquires(name).stream()
                        .filter(a -> a.outcome() == AcquireOutcome.ACQUIRED)
                        .count())
                .as("every grant reported released once")
                .isEqualTo((long) events.releases(name).size());
        assertThat(events.leaseLosses(name)).isEmpty();
    }
}
