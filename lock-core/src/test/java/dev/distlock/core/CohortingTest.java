package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Exclusion;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lock cohorting: a reentrant lock held in Redis passes between threads of one client without a round
 * trip, in arrival order, with a larger fencing token every time, renewed by the next holder's
 * watchdog, for a bounded run; then it goes back to Redis, where another client that waits gets it.
 */
@BehaviourTest
class CohortingTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private LockClient client;
    /**
     * Renewed every lease/3, so a test sees renewals within seconds; long enough that a renewal a loaded host
     * sends a second late still lands in time: every hold here must be kept until it is released.
     */
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(2);

    private LockClient otherInstance;
    private RedisProbe probe;
    private String name;

    @BeforeEach
    void setUp() {
        // Both with the default cohorting settings (64 hand-offs within 20 ms).
        client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().watchdogLease(WATCHDOG_LEASE).build());
        otherInstance = LockClient.create(RedisURI.create(redis.server().uri()));
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("cohort");
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherInstance.close();
        probe.close();
    }

    @Test
    void threadsOfOneClientShareOneGrantWithGrowingTokensAndFewRoundTrips() throws Exception {
        int threads = 4;
        int perThread = 300;
        List<Long> tokens = new CopyOnWriteArrayList<>();
        Exclusion exclusion = new Exclusion();
        long callsBefore = probe.scriptRuns();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    RedisLock lock = client.getLock(name);
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        lock.lock();
                        try {
                            tokens.add(lock.currentFencingToken());
                            exclusion.pass();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long calls = probe.scriptRuns() - callsBefore;
        int holds = threads * perThread;

        assertThat(exclusion.overlaps()).as("one holder at a time").isZero();
        assertThat(tokens).hasSize(holds);
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token of hold %d", i).isGreaterThan(tokens.get(i - 1));
        }
        // Without hand-offs every hold costs two script calls (acquire and release) at least.
        assertThat(calls)
                .as("%d script calls for %d holds: most hand-offs needed no round trip", calls, holds)
                .isLessThan(holds);
        assertThat(probe.sync().exists("lock:{" + name + "}"))
                .as("released in Redis at the end")
                .isZero();
        await().atMost(Waits.GRANTED)
                .untilAsserted(() -> assertThat(client.localGates()).isZero());
    }

    /**
     * Two instances with four threads each churn on one name: grants pass between local threads and
     * across instances. A waiter once took a holder releasing at that very moment for one whose lease
     * ran out and went to Redis past the gate, replacing the grant another local thread still held
     * (its unlock then found it gone): several times a second at this rate.
     */
    @Test
    @SlowTest // a 10 s soak
    void eightThreadsOfTwoInstancesChurningForSecondsNeverLoseTheirHoldOrOverlap() throws Exception {
        int threads = 8;
        AtomicBoolean stop = new AtomicBoolean();
        Exclusion exclusion = new Exclusion();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(exclusion.churn((t % 2 == 0 ? client : otherInstance).getLock(name), stop)));
            }
            Thread.sleep(10_000);
        } finally {
            stop.set(true);
            pool.shutdown();
        }
        for (Future<?> f : done) {
            f.get(30, TimeUnit.SECONDS); // rethrows a lost lease or any other failure
        }
        assertThat(exclusion.overlaps()).isZero();
        assertThat(exclusion.entries()).isPositive();
    }

    @Test
    void aHandedOnHoldIsRenewedByItsNewHolderReentersAndKeepsOthersOut() throws Exception {
        // A window long enough for the test to see the waiter queued before the release.
        client.close();
        client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        .watchdogLease(WATCHDOG_LEASE)
                        .localHandOffs(16, Duration.ofSeconds(10))
                        .build());
        RedisLock lock = client.getLock(name);
        lock.lock();
        long firstToken = lock.currentFencingToken();
        CountDownLatch waiting = new CountDownLatch(1);
        Map<String, Object> seen = new ConcurrentHashMap<>();
        Thread next = new Thread(() -> {
            waiting.countDown();
            lock.lock();
            try {
                seen.put("token", lock.currentFencingToken());
                lock.lock(); // re-entry of a handed-on grant
                seen.put("count", lock.getHoldCount());
                sleep(WATCHDOG_LEASE.multipliedBy(2).toMillis()); // two watchdog leases: only renewals keep it
                seen.put("held", lock.isHeldByCurrentThread());
                seen.put("othersKeptOut", !tryOnce(otherInstance.getLock(name)));
                lock.unlock();
                lock.unlock();
                seen.put("released", true);
            } catch (RuntimeException e) {
                seen.put("error", e);
            }
        });
        next.start();
        waiting.await();
        org.awaitility.Awaitility.await().atMost(Waits.GRANTED).until(() -> client.localWaiters() == 1);
        lock.unlock();
        next.join(Waits.GRANTED.toMillis());

        assertThat(seen).doesNotContainKey("error");
        // The next token of the grant's reserved block: a new grant in Redis would have jumped past the block.
        assertThat((Long) seen.get("token"))
                .as("handed on without a round trip")
                .isEqualTo(firstToken + 1);
        assertThat(seen)
                .containsEntry("count", 2)
                .containsEntry("held", true)
                .containsEntry("othersKeptOut", true)
                .containsEntry("released", true);
        assertThat(tryOnce(otherInstance.getLock(name))).isTrue();
    }

    @Test
    void anotherClientWaitingGetsTheLockAfterABoundedRunOfLocalHandOffs() throws Exception {
        int meanwhile = localHoldsWhileAnotherClientWaits(client, otherInstance, Duration.ofSeconds(10));

        // At most the rest of the block in use and one reserved before the other client was recorded (64 + 1
        // each); the hand-off window (20 ms by default) usually ends the run sooner, at about 18 holds of 1 ms.
        assertThat(meanwhile)
                .as("local holds while the other client waited")
                .isLessThanOrEqualTo(2 * (LockClientOptions.DEFAULT_LOCAL_HAND_OFFS + 1) + 1);
    }

    /**
     * Three threads of {@code local} keep taking the lock (1 ms each); once they are going, {@code other}
     * waits for it up to {@code wait} and must get it. Returns the local holds meanwhile.
     */
    private int localHoldsWhileAnotherClientWaits(LockClient local, LockClient other, Duration wait) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger localHolds = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            for (int t = 0; t < 3; t++) {
                pool.submit(() -> {
                    RedisLock lock = local.getLock(name);
                    while (!stop.get()) {
                        lock.lock();
                        try {
                            localHolds.incrementAndGet();
                            sleep(1);
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                });
            }
            org.awaitility.Awaitility.await().atMost(Waits.GRANTED).until(() -> localHolds.get() > 50);
            RedisLock elsewhere = other.getLock(name);
            int before = localHolds.get();
            assertThat(elsewhere.tryLock(wait))
                    .as("the other client is not starved by the local hand-offs")
                    .isTrue();
            int meanwhile = localHolds.get() - before;
            elsewhere.unlock();
            return meanwhile;
        } finally {
            stop.set(true);
            pool.shutdown();
            assertThat(pool.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * Alone on a lock, a client keeps passing its grant between its threads past the end of a token
     * block: the holder reserves the next block in the background (refill.lua) instead of releasing in
     * Redis and acquiring again, until the hand-off window ends.
     */
    @Test
    void aClientAloneKeepsItsGrantPastOneTokenBlock() throws Exception {
        int handOffs = 4;
        try (LockClient alone = withHandOffs(handOffs, Duration.ofSeconds(10))) {
            long acquiresBefore = probe.commandRuns("exists"); // acquire.lua's first look, once per attempt
            List<Long> tokens = churn(alone, 3, 100, 1);
            long acquires = probe.commandRuns("exists") - acquiresBefore;

            for (int i = 1; i < tokens.size(); i++) {
                assertThat(tokens.get(i)).as("token of hold %d", i).isGreaterThan(tokens.get(i - 1));
            }
            // Without refills every block of handOffs + 1 holds would need its own grant in Redis: 60 here.
            assertThat(acquires)
                    .as("%d acquire attempts in Redis for %d holds", acquires, tokens.size())
                    .isLessThan(tokens.size() / (handOffs + 1) / 3);
        }
    }

    /**
     * Each block of tokens Redis gives starts the hand-off window again (it saw no other client
     * waiting): a client alone on a lock whose threads keep taking it quickly keeps its grant window
     * after window, instead of releasing it in Redis and taking it again at the end of each.
     *
     * <p>Without that, every window ends with an acquire: about one per window. A loaded machine adds
     * acquires of its own, per hold rather than per window: a release that finds no thread queued yet,
     * or a block used up before its refill came back. So the holds last 2 ms (time to queue again, and
     * four holds' time for a refill), a block of 9 stays well inside a 60 ms window even with holds
     * slowed down, and half as many acquires as windows is the bound.
     */
    @Test
    void aClientAloneKeepsItsGrantPastItsHandOffWindowWhileBlocksCome() throws Exception {
        Duration window = Duration.ofMillis(60);
        try (LockClient alone = withHandOffs(8, window)) {
            long acquiresBefore = probe.commandRuns("exists"); // acquire.lua's first look, once per attempt
            long start = System.nanoTime();
            List<Long> tokens = churn(alone, 3, 250, 2); // 750 holds of 2 ms: about 25 windows
            long windows = (System.nanoTime() - start) / window.toNanos();
            long acquires = probe.commandRuns("exists") - acquiresBefore;

            for (int i = 1; i < tokens.size(); i++) {
                assertThat(tokens.get(i)).as("token of hold %d", i).isGreaterThan(tokens.get(i - 1));
            }
            assertThat(windows).as("hand-off windows the run lasted").isGreaterThanOrEqualTo(6);
            // Without the restart every window would end with a release in Redis and a new grant.
            assertThat(acquires)
                    .as("%d acquire attempts in Redis over %d windows", acquires, windows)
                    .isLessThan(windows / 2);
        }
    }

    /**
     * With a hand-off window far longer than the test, only the refusal of the next token block lets
     * another client in: it gets the lock within a couple of blocks of local hand-offs.
     */
    @Test
    void anotherClientWaitingStopsTheRefillsWithinTwoBlocks() throws Exception {
        int handOffs = 4;
        try (LockClient longWindow = withHandOffs(handOffs, Duration.ofSeconds(10))) {
            // Well within the 10 s window.
            int meanwhile = localHoldsWhileAnotherClientWaits(longWindow, otherInstance, Duration.ofSeconds(5));

            // The rest of the block in use, a block reserved before the other client was recorded, the hold
            // in flight.
            assertThat(meanwhile)
                    .as("local holds while the other client waited")
                    .isLessThanOrEqualTo(3 * (handOffs + 1));
        }
    }

    /**
     * A client with cohorting off is recorded as waiting like any other: that too stops the refills and
     * makes the release reserve the lock for it; before, its waiter waited for as long as the cohorting
     * client's threads kept coming.
     */
    @Test
    void aWaiterOfAClientWithoutCohortingAlsoStopsTheRefills() throws Exception {
        int handOffs = 4;
        try (LockClient longWindow = withHandOffs(handOffs, Duration.ofSeconds(10));
                LockClient withoutCohorting = withHandOffs(0, Duration.ZERO)) {
            int meanwhile = localHoldsWhileAnotherClientWaits(longWindow, withoutCohorting, Duration.ofSeconds(5));

            // As above: the release reserves the lock for it, as for a client that hands locks on locally.
            assertThat(meanwhile)
                    .as("local holds while the client without cohorting waited")
                    .isLessThanOrEqualTo(3 * (handOffs + 1));
        }
    }

    /** A client of its own with these cohorting settings, the others default. */
    private static LockClient withHandOffs(int handOffs, Duration window) {
        return LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().localHandOffs(handOffs, window).build());
    }

    /**
     * {@code threads} threads of {@code client} take the lock {@code perThread} times each, for {@code holdMillis}
     * each time; the tokens in grant order.
     */
    private List<Long> churn(LockClient client, int threads, int perThread, long holdMillis) throws Exception {
        List<Long> tokens = new CopyOnWriteArrayList<>();
        AtomicInteger inside = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    RedisLock lock = client.getLock(name);
                    for (int i = 0; i < perThread; i++) {
                        lock.lock();
                        try {
                            assertThat(inside.incrementAndGet())
                                    .as("one holder at a time")
                                    .isEqualTo(1);
                            tokens.add(lock.currentFencingToken());
                            sleep(holdMillis);
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        return tokens;
    }

    @Test
    void badSettingsAreRefusedNamingTheOption() {
        assertThatThrownBy(() -> LockClientOptions.builder().localHandOffs(-1, Duration.ofMillis(20)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("localHandOffs must be between 0 (off) and 1000, got -1");
        assertThatThrownBy(() -> LockClientOptions.builder().localHandOffs(1001, Duration.ofMillis(20)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 1001");
        assertThatThrownBy(() -> LockClientOptions.builder().localHandOffs(16, Duration.ofSeconds(11)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("localHandOffs window");
    }

    @Test
    void onByDefault() {
        // threadsOfOneClientShareOneGrant... runs with these defaults
        assertThat(LockClientOptions.defaults().localHandOffs()).isEqualTo(64);
        assertThat(LockClientOptions.defaults().localHandOffWindow()).isEqualTo(Duration.ofMillis(20));
    }

    @Test
    void aWaitingThreadOfTheSameClientGetsTheHoldWithoutARoundTrip() throws Exception {
        // a window long enough for the test to see the waiter queue (the default 20 ms would run out)
        try (LockClient cohorting = withHandOffs(LockClientOptions.DEFAULT_LOCAL_HAND_OFFS, Duration.ofSeconds(10))) {
            assertThat(scriptCallsForOneHandOff(cohorting))
                    .as("only the last release goes to Redis")
                    .isEqualTo(1);
        }
    }

    @Test
    void turnedOffEveryReleaseGoesToRedis() throws Exception {
        try (LockClient off = withHandOffs(0, Duration.ZERO)) {
            assertThat(scriptCallsForOneHandOff(off))
                    .as("release, acquire, release")
                    .isGreaterThanOrEqualTo(3);
        }
    }

    /** Script calls from the release of a hold another thread of {@code client} waits for, to that thread's release. */
    private long scriptCallsForOneHandOff(LockClient client) throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        Thread next = new Thread(() -> {
            lock.lock();
            lock.unlock();
        });
        next.start();
        org.awaitility.Awaitility.await().atMost(Waits.GRANTED).until(() -> client.localWaiters() == 1);
        long callsBefore = probe.scriptRuns();
        lock.unlock();
        next.join(10_000);
        assertThat(next.isAlive()).isFalse();
        return probe.scriptRuns() - callsBefore;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
