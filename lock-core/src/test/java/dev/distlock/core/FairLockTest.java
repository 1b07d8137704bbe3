package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.answered;
import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.internal.engine.FairHandOffs;
import dev.distlock.core.internal.engine.FairKind;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.Exclusion;
import dev.distlock.core.testing.GiveUpStorm;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.core.testing.RedisMonitor;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fair lock through the public API, threads of one and of two clients: arrival order, prompt
 * handoff to the next waiter only, no queue entries left behind, and the contract every lock keeps
 * (owner-only release, watchdog renewal, lease loss reported).
 */
class FairLockTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** Waiters that never re-check on their own within a test: only a wake-up message can move them. */
    private static final FairKind SLEEPY = new FairKind(Duration.ofSeconds(60), Duration.ofSeconds(60));

    private static final Duration WATCHDOG_LEASE = Duration.ofMillis(600);

    private final RecordingListener events = new RecordingListener();
    private LockClient client;
    private LockClient otherClient;
    private RedisProbe probe;
    private String name;
    private LockKeys keys;

    @BeforeEach
    void setUp() {
        client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().listener(events).build());
        otherClient = LockClient.create(RedisURI.create(redis.server().uri()));
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("fair");
        keys = LockKeys.of("lock:", name);
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherClient.close();
        probe.close();
    }

    /**
     * A fair hold whose lease ran out in Redis without its client noticing (here its key deleted under a fixed
     * lease, which nothing renews), re-entered while another client holds the lock: the re-entry queues, and
     * the other client's release grants the lock to it anew, under the same grant id and with a new token. That
     * is a new hold, not a re-entry of the old one: the old one is reported lost, and the token is the new one.
     * Before, the client counted it as a re-entry, kept the old token and reported nothing, although the other
     * client had held the lock in between.
     */
    @Test
    void aReentryGrantedAnewAfterTheHoldRanOutReportsTheOldHoldLost() throws Exception {
        RedisLock lock = client.getFairLock(name);
        assertThat(answered(() -> lock.tryLock(Duration.ZERO, Duration.ofSeconds(60))))
                .isTrue();
        long first = lock.currentFencingToken();
        probe.sync().del(keys.lock()); // its lease is over in Redis; this client does not know yet

        LockHandle other =
                otherClient.getFairLock(name).lockAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
        long othersToken = other.fencingToken();
        OtherThread<Void> release = OtherThread.start(() -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().llen(keys.queue()) == 1);
            other.unlock();
            return null;
        });

        assertThat(lock.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(60))).isTrue();
        release.get();

        assertThat(events.leaseLosses(lock.getKey()))
                .as("the old hold, reported lost")
                .hasSize(1);
        assertThat(lock.currentFencingToken()).isGreaterThan(othersToken).isGreaterThan(first);
        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    /**
     * lockAsync() waits without a limit; a caller bounds it with orTimeout. The wait must end with it: before,
     * only a cancel stopped it, and a timed-out wait kept its place in the queue (every later caller behind a
     * caller who had given up) until granted.
     */
    @Test
    void anEndlessWaitTimedOutByTheCallerLeavesTheQueue() throws Exception {
        RedisLock held = otherClient.getFairLock(name);
        held.lock();
        try {
            CompletableFuture<LockHandle> waiting =
                    client.getFairLock(name).lockAsync().toCompletableFuture().orTimeout(500, TimeUnit.MILLISECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().llen(keys.queue()) == 1);

            assertThat(waiting).failsWithin(Duration.ofSeconds(10));
            await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().llen(keys.queue()) == 0);
        } finally {
            held.unlock();
        }
        assertThat(probe.sync().exists(keys.lock()))
                .as("nobody takes it after its holder")
                .isZero();
    }

    @Test
    void threadsOfTwoClientsGetTheLockInTheOrderTheyQueued() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<OtherThread<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int id = i;
            RedisLock lock = (i % 2 == 0 ? otherClient : client).getFairLock(name);
            waiters.add(OtherThread.start(() -> {
                lock.lock();
                try {
                    order.add(id);
                } finally {
                    lock.unlock();
                }
                return null;
            }));
            // the next one starts only once this one has its place in Redis
            await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == id + 1);
        }
        assertThat(client.localWaiters()).as("fair waiters never queue locally").isZero();

        held.unlock();

        for (OtherThread<Void> waiter : waiters) {
            waiter.get();
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertNoQueueLeft();
    }

    @Test
    void nextWaiterInTheSameClientIsWokenByTheRelease() throws Exception {
        assertReleaseWakesTheNextWaiter(client);
    }

    @Test
    void nextWaiterInAnotherClientIsWokenByTheRelease() throws Exception {
        assertReleaseWakesTheNextWaiter(otherClient);
    }

    /** The holder keeps a 30 s lease and the waiter never re-checks on its own: only the release can wake it in time. */
    private void assertReleaseWakesTheNextWaiter(LockClient waiterClient) throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        OtherThread<Long> waiter = OtherThread.start(() -> {
            RedisLock lock = waiterClient.getLock(SLEEPY, name, name);
            if (!lock.tryLock(Duration.ofSeconds(25))) {
                throw new AssertionError("not acquired");
            }
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> queue().size() == 1 && waiterClient.subscribedChannels() == 1);

        long released = System.nanoTime();
        held.unlock();

        assertThat(Duration.ofNanos(waiter.get() - released)).isLessThan(Duration.ofSeconds(5));
        assertNoQueueLeft();
    }

    /**
     * Lock cohorting that keeps arrival order: the waiters of one client queued right behind the one a
     * release grants the lock to take it in turn in-process; a waiter of another client queued behind
     * them gets it next, then the rest. Every waiter sleeps 60 s between attempts, so only a hand-off
     * (in-process or by message) can move it.
     */
    @Test
    void aLineOfOneClientsWaitersTakesTheLockInQueueOrderWithoutAScriptEach() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        long previous = held.currentFencingToken();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<OtherThread<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int id = i;
            LockClient owner = i == 3 ? otherClient : client;
            waiters.add(OtherThread.start(() -> {
                RedisLock lock = owner.getLock(SLEEPY, name, name);
                if (!lock.tryLock(Duration.ofSeconds(25))) {
                    throw new AssertionError("waiter " + id + " not acquired");
                }
                try {
                    order.add(id);
                    tokens.add(lock.currentFencingToken());
                } finally {
                    lock.unlock();
                }
                return null;
            }));
            await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == id + 1);
        }
        long releases;
        loadFairScripts();
        try (RedisMonitor monitor = RedisMonitor.start(redis.server())) {
            held.unlock();

            for (OtherThread<Void> waiter : waiters) {
                waiter.get();
            }
            probe.sync().echo("line-done");
            releases = monitor.commandsUntil("line-done").stream()
                    .filter(c -> !c.fromScript() && c.words().contains(LockScript.FAIR_RELEASE.sha1()))
                    .count();
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertThat(tokens)
                .as("every grant a larger token, in-process hand-offs too")
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(tokens.get(0)).isGreaterThan(previous);
        // The holder's release (granting 0, with 1 and 2 behind it), 2's (granting 3), 3's (granting 4) and
        // 4's: 0 and 1 passed it on in-process. A release script per hold would be 6.
        assertThat(releases).isEqualTo(4);
        assertNoQueueLeft();
        assertThat(probe.sync().exists(keys.lock(), keys.waiting())).isZero();
        assertThat(client.activeHolds()).isZero();
    }

    /**
     * An async handle in the line is passed the lock in-process too, and its caller's code runs on the
     * client's hand-off threads, not inside the unlock of the thread that passed it on.
     */
    @Test
    void aHandleInTheLineIsPassedTheLockOffTheReleasingThread() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        OtherThread<String> first = OtherThread.start(() -> {
            RedisLock lock = client.getLock(SLEEPY, name, name);
            if (!lock.tryLock(Duration.ofSeconds(25))) {
                throw new AssertionError("not acquired");
            }
            tokens.add(lock.currentFencingToken());
            lock.unlock(); // passes it down the line to the handle
            return Thread.currentThread().getName();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1);
        java.util.concurrent.atomic.AtomicReference<String> completedOn =
                new java.util.concurrent.atomic.AtomicReference<>();
        CompletableFuture<Optional<LockHandle>> taking = client.getLock(SLEEPY, name, name)
                .tryLockAsync(Duration.ofSeconds(25))
                .toCompletableFuture()
                .whenComplete((h, e) -> completedOn.set(Thread.currentThread().getName()));
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 2);
        long releases;
        loadFairScripts();
        try (RedisMonitor monitor = RedisMonitor.start(redis.server())) {
            held.unlock();

            String releasedOn = first.get();
            LockHandle handle = taking.get(10, TimeUnit.SECONDS).orElseThrow();
            tokens.add(handle.fencingToken());
            handle.unlock();
            assertThat(completedOn.get())
                    .as("not the thread that passed it on (%s)", releasedOn)
                    .startsWith("distlock-handoff-");
            probe.sync().echo("line-done");
            releases = monitor.commandsUntil("line-done").stream()
                    .filter(c -> !c.fromScript() && c.words().contains(LockScript.FAIR_RELEASE.sha1()))
                    .count();
        }
        assertThat(tokens).hasSize(2).isSorted().doesNotHaveDuplicates();
        assertThat(releases)
                .as("the holder's release and the handle's; the thread passed it on")
                .isEqualTo(2);
        assertNoQueueLeft();
        assertThat(client.activeHolds()).isZero();
    }

    /** A waiter of the line that gave up before its turn is passed over; the next in the line gets the lock. */
    @Test
    void aWaiterThatLeftTheLineIsPassedOver() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        CountDownLatch leaverDone = new CountDownLatch(1);
        List<Integer> order = new CopyOnWriteArrayList<>();
        OtherThread<Void> first = OtherThread.start(() -> {
            RedisLock lock = client.getLock(SLEEPY, name, name);
            lock.lock();
            try {
                order.add(0);
                assertThat(leaverDone.await(10, TimeUnit.SECONDS)).isTrue();
            } finally {
                lock.unlock();
            }
            return null;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1);
        OtherThread<Boolean> leaver = OtherThread.start(() -> {
            try {
                return client.getLock(SLEEPY, name, name).tryLock(Duration.ofMillis(1500));
            } finally {
                leaverDone.countDown();
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 2);
        OtherThread<Void> last = OtherThread.start(() -> {
            RedisLock lock = client.getLock(SLEEPY, name, name);
            if (!lock.tryLock(Duration.ofSeconds(25))) {
                throw new AssertionError("not acquired");
            }
            order.add(2);
            lock.unlock();
            return null;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 3);

        held.unlock(); // grants 0, with the leaver and 2 in its line; 0 holds on until the leaver gave up

        assertThat(leaver.get()).as("gave up while 0 held the lock").isFalse();
        first.get();
        last.get();
        assertThat(order).containsExactly(0, 2);
        assertNoQueueLeft();
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !client.getFairLock(name).isLocked());
        assertThat(client.activeHolds()).isZero();
    }

    @Test
    void aWaiterOfTheReleasingClientIsHandedTheLockWithoutAnotherScript() throws Exception {
        assertHandOverRunsScripts(client, 1); // the release, which grants the waiter and returns the grant
    }

    @Test
    void aWaiterOfAnotherClientTakesItsGrantUpWithOneAttempt() throws Exception {
        assertHandOverRunsScripts(otherClient, 2); // the release, then the woken waiter's attempt
    }

    /** Scripts Redis runs from the holder's unlock until the waiter holds the lock, with a larger fencing token. */
    private void assertHandOverRunsScripts(LockClient waiterClient, long expected) throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        long holderToken = held.currentFencingToken();
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch counted = new CountDownLatch(1);
        OtherThread<Long> waiter = OtherThread.start(() -> {
            RedisLock lock = waiterClient.getLock(SLEEPY, name, name);
            if (!lock.tryLock(Duration.ofSeconds(25))) {
                throw new AssertionError("not acquired");
            }
            try {
                acquired.countDown();
                counted.await();
                return lock.currentFencingToken();
            } finally {
                lock.unlock();
            }
        });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> queue().size() == 1 && waiterClient.subscribedChannels() == 1);
        long before = probe.scriptRuns();

        held.unlock();

        assertThat(acquired.await(10, TimeUnit.SECONDS)).isTrue();
        long runs = probe.scriptRuns() - before;
        counted.countDown();
        assertThat(waiter.get()).isGreaterThan(holderToken);
        assertThat(runs).isEqualTo(expected);
        assertNoQueueLeft();
    }

    /**
     * A release's reply handled only after its waiter's own attempt took up the grant it made. The
     * releasing thread registers for the reply after sending the release; held up in between, it handles
     * the reply itself, late, while the client's I/O thread has already read the waiter's later reply. By
     * then the grant is the waiter's hold, and giving it back freed the lock under that holder: the rare
     * overlap of {@link #waitersGivingUpAsTheLockIsGrantedToThemNeverStrandIt}. Here the late handling is
     * run directly, once the waiter holds the grant the release made.
     */
    @Test
    void aGrantItsWaiterHoldsIsNotGivenBackWhenTheReleaseReplyIsHandledLate() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        OtherThread<Void> waiter = OtherThread.start(() -> {
            RedisLock lock = client.getFairLock(name);
            lock.lock();
            try {
                holding.countDown();
                assertThat(done.await(20, TimeUnit.SECONDS)).isTrue();
                assertThat(lock.isHeldByCurrentThread()).isTrue();
            } finally {
                lock.unlock();
            }
            return null;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1);
        held.unlock();
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        handOverTheGrantLateAndCheckItStands();

        done.countDown();
        waiter.get();
        assertThat(events.leaseLosses(held.getKey())).isEmpty();
        assertThat(client.getFairLock(name).isLocked()).isFalse();
    }

    /** As above, for an async caller: its handle holds the grant the release made. */
    @Test
    void aGrantItsHandleHoldsIsNotGivenBackWhenTheReleaseReplyIsHandledLate() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        CompletableFuture<LockHandle> waiting =
                client.getFairLock(name).lockAsync().toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1);
        held.unlock();
        LockHandle handle = waiting.get(10, TimeUnit.SECONDS);

        handOverTheGrantLateAndCheckItStands();

        assertThat(handle.isHeld()).isTrue();
        handle.unlock();
        assertThat(events.leaseLosses(held.getKey())).isEmpty();
        assertThat(client.getFairLock(name).isLocked()).isFalse();
    }

    /**
     * Runs the hand-over of the grant the lock stands on now (a release's reply handled late), then checks
     * that its holder still has it: another client cannot take the lock, and the holder's field stays.
     */
    private void handOverTheGrantLateAndCheckItStands() throws InterruptedException {
        Map<String, String> grant = probe.sync().hgetall(keys.lock());
        String owner = grant.keySet().stream()
                .filter(field -> !field.startsWith("~"))
                .findFirst()
                .orElseThrow();

        client.node()
                .handOver(
                        FairKind.INSTANCE,
                        keys,
                        owner,
                        grant.get("~req"),
                        Long.parseLong(grant.get("~token")),
                        System.nanoTime(),
                        30_000,
                        FairHandOffs.Cohort.NONE);

        assertThat(otherClient.getFairLock(name).tryLock(Waits.RUNS_OUT))
                .as("another client gets a lock its holder still holds")
                .isFalse();
        assertThat(probe.sync().hgetall(keys.lock())).containsEntry(owner, "1");
    }

    /**
     * Waiters of two clients, threads and handles, giving up at every moment (short waits, handles
     * cancelled) while the lock is granted to the next waiter on every release: a grant made to a waiter
     * that just left is given back, so the lock is never stranded for the 30 s watchdog lease. One holder
     * at a time, each with a larger fencing token than the one before; a failure lists the holders around
     * the fault, by thread or handle and token.
     */
    @Test
    void waitersGivingUpAsTheLockIsGrantedToThemNeverStrandIt() throws Exception {
        GiveUpStorm storm = new GiveUpStorm(List.of(client.getFairLock(name), otherClient.getFairLock(name)), false);
        Exclusion exclusion = storm.run(Duration.ofSeconds(4));

        assertThat(exclusion.overlaps()).as(exclusion::report).isZero();
        assertThat(exclusion.tokenBreaks())
                .as(() -> "every holder a larger fencing token than the one before" + exclusion.report())
                .isZero();
        assertThat(exclusion.entries()).as("the lock was taken at all").isPositive();
        // Default 30 s watchdog lease: a grant stranded with a waiter that left would keep the lock that long.
        await().atMost(Duration.ofSeconds(3))
                .until(() -> !client.getFairLock(name).isLocked());
        await().atMost(Duration.ofSeconds(10))
                .until(() -> probe.sync().exists(keys.queue(), keys.timeouts(), keys.waiting()) == 0);
        assertThat(client.activeHolds() + otherClient.activeHolds()).isZero();
    }

    @Test
    void releaseWakesOnlyTheNextWaiterAndTheOthersStayAsleep() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        CountDownLatch finish = new CountDownLatch(1);
        List<OtherThread<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int id = i;
            LockClient waiterClient = i == 1 ? client : otherClient;
            waiters.add(OtherThread.start(() -> {
                RedisLock lock = waiterClient.getLock(SLEEPY, name, name);
                lock.lock();
                try {
                    finish.await(20, TimeUnit.SECONDS);
                } finally {
                    lock.unlock();
                }
                return null;
            }));
            await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == id + 1);
        }
        List<String> queued = queue();
        // each attempt of a waiter refreshes its deadline: unchanged deadlines mean the later waiters never woke
        Map<String, Double> deadlinesBefore = deadlines(queued.subList(1, 3));

        held.unlock();

        await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().hexists(keys.lock(), queued.get(0)));
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> deadlines(queued.subList(1, 3)).equals(deadlinesBefore));
        assertThat(queue()).containsExactlyElementsOf(queued.subList(1, 3));
        finish.countDown();
        for (OtherThread<Void> waiter : waiters) {
            waiter.get();
        }
        assertNoQueueLeft();
    }

    @Test
    void waitersThatTimeOutOrAreInterruptedLeaveNothingInRedis() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        List<OtherThread<Boolean>> timeouts = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            LockClient waiterClient = i % 2 == 0 ? client : otherClient;
            timeouts.add(OtherThread.start(() -> waiterClient.getFairLock(name).tryLock(Waits.RUNS_OUT)));
        }
        OtherThread<Boolean> interrupted =
                OtherThread.start(() -> otherClient.getFairLock(name).tryLock(Duration.ofSeconds(20)));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> queue().contains(otherClient.clientId() + ":" + interrupted.thread.getId()));

        interrupted.thread.interrupt();

        assertThat(interrupted.failure()).isInstanceOf(InterruptedException.class);
        for (OtherThread<Boolean> t : timeouts) {
            assertThat(t.get()).isFalse();
        }
        assertNoQueueLeft();
        held.unlock();
        assertThat(client.subscribedChannels()).isZero();
        assertThat(otherClient.subscribedChannels()).isZero();
    }

    @Test
    void tryLockWithoutWaitNeitherQueuesNorPassesQueuedWaiters() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        OtherThread<Boolean> waiter = OtherThread.start(() -> {
            RedisLock lock = otherClient.getLock(SLEEPY, name, name);
            boolean acquired = lock.tryLock(Duration.ofSeconds(20));
            lock.unlock();
            return acquired;
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1);

        assertThat(OtherThread.call(() -> tryOnce(client.getFairLock(name)))).isFalse();
        assertThat(queue()).hasSize(1);
        held.unlock();
        assertThat(waiter.get()).isTrue();
        assertNoQueueLeft();
    }

    @Test
    void releasesOnlyForOwnerAndReentryKeepsTheFencingToken() throws Exception {
        RedisLock lock = client.getFairLock(name);
        lock.lock();
        long token = lock.currentFencingToken();
        lock.lock();

        Throwable error = OtherThread.failure(() -> {
            lock.unlock();
            return null;
        });

        assertThat(error).isInstanceOf(IllegalMonitorStateException.class).hasMessageContaining(name);
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.currentFencingToken()).isEqualTo(token);
        lock.unlock();
        assertThat(lock.isLocked()).isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        lock.lock();
        assertThat(lock.currentFencingToken()).isGreaterThan(token);
        lock.unlock();
        assertThat(events.acquires(name))
                .allSatisfy(e -> assertThat(e.lock().type()).isEqualTo(LockType.FAIR));
    }

    @Test
    void watchdogKeepsAFairLockWhileItsHolderRuns() throws Exception {
        try (LockClient fast = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        .watchdogLease(WATCHDOG_LEASE)
                        .listener(events)
                        .build())) {
            RedisLock lock = fast.getFairLock(name);
            lock.lock();

            await().atMost(Duration.ofSeconds(10))
                    .until(() -> events.renewals(name, RenewalOutcome.RENEWED).size() >= 4);

            assertThat(lock.isLocked()).isTrue();
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(events.leaseLosses(name)).isEmpty();
            lock.unlock();
        }
    }

    @Test
    void lostFairLockIsReportedAndUnlockSaysSo() throws Exception {
        try (LockClient fast = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        .watchdogLease(WATCHDOG_LEASE)
                        .listener(events)
                        .build())) {
            RedisLock lock = fast.getFairLock(name);
            lock.lock();

            assertThat(otherClient.getFairLock(name).forceUnlock()).isTrue();

            await().atMost(Duration.ofSeconds(5))
                    .until(() -> events.leaseLosses(name).size() == 1);
            assertThat(lock.isHeldByCurrentThread()).isFalse();
            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining(name);
            lock.lock();
            lock.unlock();
        }
    }

    /**
     * Runs a fair lock and unlock on another name first: a script Redis has not seen is sent whole
     * (EVAL after NOSCRIPT), and a MONITOR line that long is more than its parser takes.
     */
    private void loadFairScripts() {
        RedisLock warm = client.getFairLock(name + "-warm-up");
        warm.lock();
        warm.unlock();
    }

    private List<String> queue() {
        return probe.sync().lrange(keys.queue(), 0, -1);
    }

    private Map<String, Double> deadlines(List<String> owners) {
        Map<String, Double> result = new java.util.HashMap<>();
        for (String owner : owners) {
            result.put(owner, probe.sync().zscore(keys.timeouts(), owner));
        }
        return result;
    }

    private void assertNoQueueLeft() {
        assertThat(probe.sync().exists(keys.queue(), keys.timeouts()))
                .as("queue and timeouts keys")
                .isZero();
    }
}
