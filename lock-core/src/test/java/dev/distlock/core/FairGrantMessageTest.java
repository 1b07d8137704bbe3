package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.LockOwner;
import dev.distlock.core.testing.ReplyLoss;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A fair release in one client grants the lock to a waiter of another and publishes the grant on that
 * waiter's channel, which holds the lock on receipt. With faults: the release's reply lost and the release
 * sent again, a waiter that gave up while its grant message was on its way, a grant message lost with the
 * connection, and an old grant message coming again. Waiters use {@link FairLockFixture#SLEEPY}, so only a
 * message (or a fault's recovery) can move them.
 */
@SlowTest
class FairGrantMessageTest extends FairLockFixture {

    private FaultRelay relay;
    /** A client whose every connection (commands and subscriptions) goes through {@link #relay}. */
    private LockClient relayed;

    private LockOwner owner;

    @BeforeEach
    void relay() {
        relay = FaultRelay.to(redis.server());
        relayed = LockClient.create(RedisURI.create(relay.uri()));
        owner = new LockOwner("fair-grant-owner");
    }

    @AfterEach
    void closeRelay() {
        relay.heal();
        owner.close();
        relayed.close();
        relay.close();
    }

    /**
     * Two clients of four threads each, queued alternately: every hand-off crosses clients, goes by message,
     * and keeps arrival order, each with a larger fencing token, and no waiter runs an acquire script after
     * the first release.
     */
    @Test
    void waitersOfTwoClientsTakeTheLockFromMessagesInArrivalOrderWithGrowingTokens() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        long previous = held.currentFencingToken();
        Line line = queueLine(otherClient, client, otherClient, client, otherClient, client, otherClient, client);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> client.subscribedChannels() == 4 && otherClient.subscribedChannels() == 4);

        long acquires = callsWhile(LockScript.FAIR_ACQUIRE, () -> {
            held.unlock();
            line.awaitAll();
        });

        assertThat(line.order).containsExactly(0, 1, 2, 3, 4, 5, 6, 7);
        assertThat(line.tokens).isSorted().doesNotHaveDuplicates();
        assertThat(line.tokens.get(0)).isGreaterThan(previous);
        assertThat(acquires).as("acquire scripts run after the first release").isZero();
        assertNoQueueLeft();
        assertThat(probe.sync().exists(keys.lock(), keys.waiting())).isZero();
    }

    /**
     * The holder's last release runs in Redis, its reply is lost with the connection, and the release goes
     * out again: the waiter of the other client is granted the lock once, by one grant message.
     */
    @Test
    void aReleaseSentAgainAfterItsReplyWasLostPublishesOneGrant() throws Exception {
        ReplyLoss.loadScripts(relayed, owner);
        RedisLock held = relayed.getFairLock(name);
        owner.act(held::lock);
        owner.act(held::unlock);
        owner.act(held::lock); // the fair scripts loaded: the reply lost is the release's, not NOSCRIPT
        long holderToken = owner.run(held::currentFencingToken);
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        OtherThread<Long> waiter = OtherThread.start(() -> {
            RedisLock lock = otherClient.getLock(SLEEPY, name, name);
            if (!lock.tryLock(Waits.GRANTED)) {
                throw new AssertionError("not acquired");
            }
            try {
                acquired.countDown();
                assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
                return lock.currentFencingToken();
            } finally {
                lock.unlock();
            }
        });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> queue().size() == 1 && otherClient.subscribedChannels() == 1);
        String channel = keys.waiterChannelPrefix() + queue().get(0);
        BlockingQueue<String> messages = probe.subscribe(channel);

        new ReplyLoss(relay, owner)
                .onlyItsConnection()
                .lose(FaultRelay.Drop.RST, held::unlock)
                .get(30, TimeUnit.SECONDS);

        assertThat(acquired.await(30, TimeUnit.SECONDS)).isTrue();
        probe.sync().publish(channel, "flush"); // delivered after every message published before it
        List<String> seen = new ArrayList<>();
        for (String m = messages.poll(10, TimeUnit.SECONDS);
                !"flush".equals(m);
                m = messages.poll(10, TimeUnit.SECONDS)) {
            assertThat(m).as("a message before the flush").isNotNull();
            seen.add(m);
        }
        done.countDown();
        assertThat(waiter.get()).isGreaterThan(holderToken);
        assertThat(seen).hasSize(1);
        assertThat(seen.get(0)).startsWith("~g ");
        assertThat(owner.run(held::getHoldCount)).isZero();
        assertNoQueueLeft();
    }

    /**
     * The head's grant message is held up (its client's replies held by the relay) until after it gave up:
     * its leave gives the grant back at once and the next waiter holds the lock, long before the grant's
     * lease (30 s) would have freed it. The late message then finds nobody waiting for it.
     */
    @Test
    void aWaiterThatGaveUpBeforeItsGrantMessageCameGivesTheGrantBackAtOnce() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        long scripts = probe.scriptRuns();
        OtherThread<Boolean> leaver =
                OtherThread.start(() -> relayed.getLock(SLEEPY, name, name).tryLock(Waits.RUNS_OUT));
        // its attempts before and after subscribing: then it sleeps, and only its grant message can wake it
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1 && probe.scriptRuns() - scripts >= 2);
        OtherThread<Long> next = takesOnce(otherClient.getLock(SLEEPY, name, name), lock -> System.nanoTime());
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 2);
        relay.holdReplies();

        long released = System.nanoTime();
        held.unlock(); // grants the leaver; its message waits in the relay

        assertThat(next.get() - released)
                .as("the next waiter holds the lock well within the lease of the leaver's grant")
                .isLessThan(LockClientOptions.DEFAULT_WATCHDOG_LEASE.toNanos() / 2);
        relay.releaseReplies();
        try {
            assertThat(leaver.get()).isFalse();
        } catch (java.util.concurrent.ExecutionException e) {
            // its last attempt, at the end of its wait, went unanswered while the relay held its replies
            assertThat(e.getCause()).isInstanceOf(LockUnavailableException.class);
        }
        assertThat(relayed.activeHolds()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().exists(keys.lock()) == 0);
        assertNoQueueLeft();
    }

    /**
     * The waiter's grant message is lost with its client's connections: its next attempt (every recheck, 1 s,
     * and at once on re-subscribing) finds the grant in Redis and takes it up.
     */
    @Test
    void aWaiterThatMissedItsGrantMessageTakesTheGrantUpByItsNextAttempt() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        long holderToken = held.currentFencingToken();
        OtherThread<Long> waiter = takesOnce(relayed.getFairLock(name), RedisLock::currentFencingToken);
        await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == 1 && relayed.subscribedChannels() == 1);
        relay.holdReplies();

        held.unlock();
        await("the grant message is in the relay")
                .atMost(Duration.ofSeconds(10))
                .until(() -> relay.pendingReplyBytes() > 0);
        relay.drop(FaultRelay.Drop.RST);
        relay.heal();

        assertThat(waiter.get()).isGreaterThan(holderToken);
        assertNoQueueLeft();
        assertThat(probe.sync().exists(keys.lock())).isZero();
    }

    /**
     * A grant's TTL in Redis is bounded by its waiter's place in the queue (90 s here: a 30 s wait plus the
     * 60 s margin), shorter than the waiter's 2-minute watchdog lease: the waiter holds it from the message and
     * renews it to the whole lease well before that TTL ends.
     */
    @Test
    void aGrantFromAMessageWithATtlShorterThanItsLeaseIsRenewedToTheLease() throws Exception {
        Duration lease = Duration.ofMinutes(2);
        try (LockClient longLeases = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().watchdogLease(lease).build())) {
            RedisLock held = client.getFairLock(name);
            held.lock();
            long scripts = probe.scriptRuns();
            CountDownLatch acquired = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            java.util.concurrent.Future<Boolean> waiter = owner.submit(() -> {
                RedisLock lock = longLeases.getLock(SLEEPY, name, name);
                if (!lock.tryLock(Waits.GRANTED)) {
                    return false;
                }
                acquired.countDown();
                try {
                    assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
                    return lock.isHeldByCurrentThread();
                } finally {
                    lock.unlock();
                }
            });
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> queue().size() == 1 && probe.scriptRuns() - scripts >= 2);

            held.unlock();

            assertThat(acquired.await(10, TimeUnit.SECONDS))
                    .as("the waiter holds the grant")
                    .isTrue();
            assertThat(probe.sync().pttl(keys.lock()))
                    .as("the grant's TTL, bounded by the waiter's queue place")
                    .isLessThanOrEqualTo(Duration.ofSeconds(90).toMillis());
            await("renewed to the whole lease")
                    .atMost(Duration.ofSeconds(45))
                    .until(() -> probe.sync().pttl(keys.lock())
                            > Duration.ofSeconds(100).toMillis());
            done.countDown();
            assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
            assertNoQueueLeft();
        }
    }

    /** A thread that takes {@code lock} (granted within {@link Waits#GRANTED}), notes {@code noted} of it and releases it. */
    private static OtherThread<Long> takesOnce(RedisLock lock, ToLongFunction<RedisLock> noted) {
        return OtherThread.start(() -> {
            if (!lock.tryLock(Waits.GRANTED)) {
                throw new AssertionError("not acquired");
            }
            try {
                return noted.applyAsLong(lock);
            } finally {
                lock.unlock();
            }
        });
    }

    /**
     * A grant message that comes again after its waiter took the grant and released it, while the same owner
     * waits anew (under another grant id): only a wake-up, never a hold.
     */
    @Test
    void aGrantMessageThatComesAgainIsTakenOnlyOnce() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        RedisLock mine = otherClient.getLock(SLEEPY, name, name);
        java.util.concurrent.Future<Boolean> first = owner.submit(() -> mine.tryLock(Waits.GRANTED));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> queue().size() == 1 && otherClient.subscribedChannels() == 1);
        String channel = keys.waiterChannelPrefix() + queue().get(0);
        BlockingQueue<String> messages = probe.subscribe(channel);
        held.unlock();
        assertThat(first.get(30, TimeUnit.SECONDS)).isTrue();
        String grant = messages.poll(10, TimeUnit.SECONDS);
        assertThat(grant).startsWith("~g ");
        owner.act(mine::unlock);
        held.lock();
        java.util.concurrent.Future<Boolean> again = owner.submit(() -> mine.tryLock(Waits.RUNS_OUT));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> queue().size() == 1 && otherClient.subscribedChannels() == 1);

        probe.sync().publish(channel, grant);
        probe.sync().publish(channel, grant);

        assertThat(again.get(30, TimeUnit.SECONDS))
                .as("an old grant is no hold")
                .isFalse();
        assertThat(held.isHeldByCurrentThread()).isTrue();
        assertThat(otherClient.activeHolds()).isZero();
        held.unlock();
        assertNoQueueLeft();
    }
}
