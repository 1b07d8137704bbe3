package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.engine.FairCohort;
import dev.distlock.core.internal.engine.FairKind;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.RedisMonitor;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.Waits;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Fair hand-offs: a line of one client's waiters takes the lock in queue order without a script each, a
 * handle is passed the lock off the releasing thread, a waiter that left the line is passed over, and a grant
 * its waiter holds is not given back when the release's reply is handled late.
 */
@BehaviourTest
class FairHandOffTest extends FairLockFixture {

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
        Line line = queueLine(client, client, client, otherClient, client);

        long releases = callsWhile(LockScript.FAIR_RELEASE, () -> {
            held.unlock();
            line.awaitAll();
        });

        assertThat(line.order).containsExactly(0, 1, 2, 3, 4);
        assertThat(line.tokens)
                .as("every grant a larger token, in-process hand-offs too")
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(line.tokens.get(0)).isGreaterThan(previous);
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

    /** The release publishes the grant on the waiter's channel, and the waiter holds the lock on receipt. */
    @Test
    void aWaiterOfAnotherClientHoldsTheLockOnTheGrantMessageWithoutAnotherScript() throws Exception {
        assertHandOverRunsScripts(otherClient, 1);
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
                        FairCohort.NONE);

        assertThat(otherClient.getFairLock(name).tryLock(Waits.RUNS_OUT))
                .as("another client gets a lock its holder still holds")
                .isFalse();
        assertThat(probe.sync().hgetall(keys.lock())).containsEntry(owner, "1");
    }
}
