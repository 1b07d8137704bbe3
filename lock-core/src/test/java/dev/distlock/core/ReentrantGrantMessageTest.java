package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RedisMonitor;
import dev.distlock.core.testing.ServerStats;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A reentrant lock handed between clients in one script: the release grants the lock to the waiting
 * request the other client recorded and carries the grant in its wake-up message, and that waiter holds
 * the lock on receipt. The holders keep a 30 s watchdog lease, so a waiter sleeps up to 30 s between
 * attempts: within the tests' bounds, only the message (or, for a waiter that stopped answering, the end of
 * the grant it was given) moves anyone.
 */
@BehaviourTest
@Timeout(60)
class ReentrantGrantMessageTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** The longest TTL of a grant carried in a message (RedisNode.MESSAGE_GRANT_MS). */
    private static final Duration GRANT_CAP = Duration.ofSeconds(5);

    private RedisServer server;
    private String name;
    private LockKeys keys;
    private RedisClient probeClient;
    private StatefulRedisConnection<String, String> probe;
    private RedisCommands<String, String> sync;

    @BeforeEach
    void start() {
        server = redis.server();
        name = Names.fresh("reentrant-grant");
        keys = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name);
        probeClient = RedisClient.create(RedisURI.create(server.uri()));
        probe = probeClient.connect();
        sync = probe.sync();
    }

    @AfterEach
    void stop() {
        probe.close();
        ClientShutdown.shutdown(probeClient);
    }

    private LockClient client(boolean grantsInMessages) {
        return client(server.uri(), grantsInMessages);
    }

    private static LockClient client(String uri, boolean grantsInMessages) {
        return LockClient.create(
                RedisURI.create(uri),
                LockClientOptions.builder().grantsInMessages(grantsInMessages).build());
    }

    /**
     * Until {@code waiting}'s request is recorded in the lock, subscribed, and its attempt after subscribing
     * ran ({@code scriptsBefore}: the server's script runs before it started): it sleeps until a message comes.
     */
    /** The acquire scripts clients sent since {@code monitor} started, up to now (a marker command). */
    private long acquireScriptsSoFar(RedisMonitor monitor) throws IOException {
        sync.echo("held");
        return monitor.commandsUntil("held").stream()
                .filter(c -> !c.fromScript() && c.words().contains(LockScript.ACQUIRE.sha1()))
                .count();
    }

    private void awaitRecordedAndSubscribed(LockClient waiting, long scriptsBefore) {
        await().atMost(Waits.GRANTED)
                .until(() -> sync.hget(keys.lock(), "~wr") != null
                        && waiting.subscribedChannels() == 1
                        && ServerStats.scriptRuns(server) - scriptsBefore >= 2);
    }

    /**
     * A thread of {@code waiting} that takes the lock (failing unless within {@link Waits#GRANTED}), counts
     * {@code acquired} down, holds until {@code done}, and returns its fencing token.
     */
    private OtherThread<Long> waiter(LockClient waiting, CountDownLatch acquired, CountDownLatch done) {
        return OtherThread.start(() -> {
            RedisLock lock = waiting.getLock(name);
            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
            acquired.countDown();
            done.await();
            long token = lock.currentFencingToken();
            lock.unlock();
            return token;
        });
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aWaiterOfAnotherClientHoldsTheLockOnTheReleasesMessageWithoutAnAttemptAndRenewsIt(boolean fromMessages)
            throws Exception {
        try (LockClient holder = client(fromMessages);
                LockClient waiting = client(fromMessages)) {
            RedisLock held = holder.getLock(name);
            held.lock();
            long holdersToken = held.currentFencingToken();
            long scriptsBefore = ServerStats.scriptRuns(server);
            CountDownLatch acquired = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(1);
            OtherThread<Long> waiter = waiter(waiting, acquired, done);
            awaitRecordedAndSubscribed(waiting, scriptsBefore);

            long attempts;
            try (RedisMonitor monitor = RedisMonitor.start(server)) {
                held.unlock();
                assertThat(acquired.await(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS))
                        .isTrue();
                attempts = acquireScriptsSoFar(monitor);
            }
            if (fromMessages) {
                // The grant's TTL was cut to at most the cap; the holder renews it soon to its whole lease.
                await().atMost(Waits.GRANTED).until(() -> sync.pttl(keys.lock()) > GRANT_CAP.toMillis());
            }
            done.countDown();

            assertThat(waiter.get()).as("the waiter's token").isGreaterThan(holdersToken);
            if (fromMessages) {
                assertThat(attempts)
                        .as("acquire scripts from the release until the waiter held the lock")
                        .isZero();
            } else {
                assertThat(attempts)
                        .as("the waiter's own attempt takes the grant up")
                        .isGreaterThanOrEqualTo(1);
            }
            assertThat(sync.exists(keys.lock())).as("released").isZero();
        }
    }

    /**
     * A grant taken from a message has a TTL cut short of its lease until its first renewal; it passes to the
     * next caller of its client all the same (lock cohorting), with the next token of the block the release
     * reserved, and no acquire script.
     */
    @Test
    void aGrantFromAMessagePassesToTheNextCallerOfItsClientWithoutAnAttempt() throws Exception {
        try (LockClient holder = client(true);
                LockClient waiting = client(true)) {
            RedisLock held = holder.getLock(name);
            held.lock();
            long scriptsBefore = ServerStats.scriptRuns(server);
            CountDownLatch firstHolds = new CountDownLatch(1);
            CountDownLatch letGo = new CountDownLatch(1);
            OtherThread<Long> first = waiter(waiting, firstHolds, letGo);
            awaitRecordedAndSubscribed(waiting, scriptsBefore);
            CountDownLatch secondHolds = new CountDownLatch(1);
            OtherThread<Long> second = waiter(waiting, secondHolds, new CountDownLatch(0));
            // queued behind the first at its client's local gate (the first is the one waiting in Redis)
            await().atMost(Waits.GRANTED).until(() -> second.thread.getState() == Thread.State.TIMED_WAITING);

            long attempts;
            try (RedisMonitor monitor = RedisMonitor.start(server)) {
                held.unlock();
                assertThat(firstHolds.await(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS))
                        .isTrue();
                letGo.countDown();
                assertThat(secondHolds.await(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS))
                        .isTrue();
                attempts = acquireScriptsSoFar(monitor);
            }

            assertThat(attempts)
                    .as("acquire scripts from the release until both held the lock")
                    .isZero();
            assertThat(second.get()).as("the next token of the same grant").isEqualTo(first.get() + 1);
        }
    }

    @Test
    void anAsyncWaiterHoldsTheLockOnTheReleasesMessage() throws Exception {
        try (LockClient holder = client(true);
                LockClient waiting = client(true)) {
            RedisLock held = holder.getLock(name);
            held.lock();
            long scriptsBefore = ServerStats.scriptRuns(server);
            var handle = waiting.getLock(name).tryLockAsync(Waits.GRANTED).toCompletableFuture();
            awaitRecordedAndSubscribed(waiting, scriptsBefore);

            long attempts;
            try (RedisMonitor monitor = RedisMonitor.start(server)) {
                held.unlock();
                Optional<LockHandle> got = handle.get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
                assertThat(got).isPresent();
                attempts = acquireScriptsSoFar(monitor);
                got.get().unlock();
            }
            assertThat(attempts).as("acquire scripts after the release").isZero();
        }
    }

    /**
     * The waiter's client stops answering after it was recorded (a relay passes nothing either way, as for a
     * JVM that froze or died): the release grants it the lock all the same, and that grant keeps a third
     * client out for at most its capped TTL, far less than the waiter's 30 s lease. When the waiter comes
     * back, the grant message it gets late is older than its lease clock allows, so it does not hold the
     * lock beside the third client.
     */
    @Test
    void aWaiterThatStoppedAnsweringKeepsOthersOutOnlyForTheCappedGrant() throws Exception {
        try (FaultRelay relay = FaultRelay.to(server);
                LockClient holder = client(true);
                LockClient frozen = client(relay.uri(), true);
                LockClient third = client(true)) {
            RedisLock held = holder.getLock(name);
            held.lock();
            long scriptsBefore = ServerStats.scriptRuns(server);
            AtomicBoolean waiterHeld = new AtomicBoolean();
            OtherThread<Boolean> waiter = OtherThread.start(() -> {
                RedisLock lock = frozen.getLock(name);
                boolean got = lock.tryLock(Duration.ofSeconds(40));
                if (got) {
                    waiterHeld.set(true);
                    lock.unlock();
                }
                return got;
            });
            awaitRecordedAndSubscribed(frozen, scriptsBefore);
            relay.blackHole();

            held.unlock();
            await().atMost(Waits.GRANTED).until(() -> sync.hget(keys.lock(), "~req") != null);
            assertThat(sync.pttl(keys.lock())).isBetween(1L, GRANT_CAP.toMillis());

            RedisLock other = third.getLock(name);
            // Bounded by the grant cap plus a generous margin, and well short of the 30 s lease the grant would
            // otherwise have kept.
            assertThat(other.tryLock(GRANT_CAP.plus(Duration.ofSeconds(10))))
                    .as("the third client gets the lock once the unanswered grant ended")
                    .isTrue();
            long thirdsToken = other.currentFencingToken();
            relay.heal();
            await().atMost(Waits.GRANTED).until(() -> relay.pendingReplyBytes() == 0); // the late grant message too
            assertThat(sync.hget(keys.lock(), "~token")).isEqualTo(Long.toString(thirdsToken));
            assertThat(waiterHeld)
                    .as("the waiter holds nothing while the third client holds")
                    .isFalse();
            assertThat(other.isHeldByCurrentThread()).isTrue();
            other.unlock();
            assertThat(waiter.get())
                    .as("the waiter gets the lock after the third client")
                    .isTrue();
        }
    }
}
