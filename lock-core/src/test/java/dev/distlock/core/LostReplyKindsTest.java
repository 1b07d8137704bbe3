package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.engine.FairKind;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.LockOwner;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.core.testing.ReplyLoss;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.FaultRelay.Drop;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link LostReplyTest} for the other lock kinds (fair, read, write, RedLock) and for renewals: the
 * relay holds the one reply in flight until Redis has answered it (the relay has the reply in hand),
 * then drops the connection. Whatever Lettuce and the engine send again, hold counts stay exact, no
 * loss is reported falsely, and the lock's keys are gone from Redis after the last unlock (fencing
 * counters and short release notes apart).
 */
@SlowTest
class LostReplyKindsTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    enum Kind {
        FAIR((client, name) -> client.getFairLock(name)),
        READ((client, name) -> client.getReadWriteLock(name).readLock()),
        WRITE((client, name) -> client.getReadWriteLock(name).writeLock());

        final BiFunction<LockClient, String, RedisLock> lock;

        Kind(BiFunction<LockClient, String, java.util.concurrent.locks.Lock> lock) {
            this.lock = (client, name) -> (RedisLock) lock.apply(client, name);
        }
    }

    private final RecordingListener events = new RecordingListener();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private FaultRelay relay;
    private LockClient client;
    private LockOwner owner;
    private ReplyLoss loss;

    @BeforeEach
    void connect() {
        relay = FaultRelay.to(redis.server());
        closeables.add(relay);
        client = LockClient.create(
                RedisURI.create(relay.uri()),
                LockClientOptions.builder().listener(events).build());
        closeables.add(client);
        owner = new LockOwner("lock-owner");
        closeables.add(owner);
        loss = new ReplyLoss(relay, owner);
    }

    @AfterEach
    void close() throws Exception {
        relay.heal();
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void lockWhoseReplyIsLostIsCountedOnceOrGivenBack(Kind kind) throws Exception {
        for (Drop how : Drop.values()) {
            String name = Names.fresh("lost-grant-" + kind);
            RedisLock lock = warmedUp(kind, name);

            Future<Void> locking = loss.lose(how, () -> lock.lock());

            try {
                locking.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertThat(e.getCause())
                        .as(how + ": the only failure allowed is Redis not answering")
                        .isInstanceOf(LockUnavailableException.class);
                assertThat(owner.run(lock::getHoldCount)).isZero();
                await("grant given back")
                        .atMost(Duration.ofSeconds(15))
                        .until(() -> lockKeys(redis.server(), name).isEmpty());
                continue;
            }
            assertThat(owner.run(lock::getHoldCount))
                    .as(how + ": hold count after one lock()")
                    .isEqualTo(1);
            unlock(lock);
            assertThat(lockKeys(redis.server(), name))
                    .as(how + ": one unlock() frees it")
                    .isEmpty();
            assertThat(events.leaseLosses(name)).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void unlockWhoseReplyIsLostSucceedsWithoutAFalseLoss(Kind kind) throws Exception {
        for (Drop how : Drop.values()) {
            String name = Names.fresh("lost-release-" + kind);
            RedisLock lock = warmedUp(kind, name);
            owner.act(() -> lock.lock());

            Future<Void> unlocking = loss.lose(how, () -> lock.unlock());

            unlocking.get(30, TimeUnit.SECONDS);
            assertThat(owner.run(lock::getHoldCount)).isZero();
            assertThat(lockKeys(redis.server(), name))
                    .as(how + ": released in Redis")
                    .isEmpty();
            assertThat(events.leaseLosses(name)).as(how + ": no false loss").isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void innerUnlockWhoseReplyIsLostLeavesTheOuterHoldInPlace(Kind kind) throws Exception {
        for (Drop how : Drop.values()) {
            String name = Names.fresh("lost-inner-" + kind);
            RedisLock lock = warmedUp(kind, name);
            owner.act(() -> {
                lock.lock();
                lock.lock();
            });

            Future<Void> unlocking = loss.lose(how, () -> lock.unlock());

            unlocking.get(30, TimeUnit.SECONDS);
            assertThat(owner.run(lock::getHoldCount)).as(how + ": local count").isEqualTo(1);
            try (LockClient other =
                    LockClient.create(RedisURI.create(redis.server().uri()))) {
                RedisLock writer = other.getReadWriteLock(name).writeLock();
                RedisLock contender = kind == Kind.FAIR ? other.getFairLock(name) : writer;
                assertThat(tryOnce(contender))
                        .as(how + ": another client while the outer hold lasts")
                        .isFalse();
            }
            unlock(lock);
            assertThat(lockKeys(redis.server(), name))
                    .as(how + ": the last unlock frees it")
                    .isEmpty();
            assertThat(events.leaseLosses(name)).isEmpty();
        }
    }

    /**
     * The last release of a fair lock grants it in Redis to the next waiter in the queue, here another
     * thread of the same client, which the client then hands the grant to in-process; the release's reply
     * is lost with the connection it went over (the subscriptions stay, so no re-subscription wakes the
     * waiter). The waiter re-checks only every 60 s on its own, so it gets the lock within its 30 s wait
     * only if the release sent again still tells the client of the grant it made.
     */
    @Test
    void fairReleaseWhoseReplyIsLostStillHandsTheLockToTheNextWaiterOfItsClient() throws Exception {
        FairKind sleepy = new FairKind(Duration.ofSeconds(60), Duration.ofSeconds(60));
        for (Drop how : Drop.values()) {
            String name = Names.fresh("lost-hand-over");
            warmedUp(Kind.FAIR, name); // the fair scripts loaded: the reply lost is the release's, not NOSCRIPT
            RedisLock lock = client.getLock(sleepy, name, name);
            owner.act(() -> lock.lock());
            OtherThread<Long> waiter = OtherThread.start(() -> {
                RedisLock mine = client.getLock(sleepy, name, name);
                if (!mine.tryLock(Duration.ofSeconds(30))) {
                    return -1L;
                }
                long at = System.nanoTime();
                mine.unlock();
                return at;
            });
            String queue =
                    LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).queue();
            await("the waiter is queued and listens")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> redis.server().query("LLEN", queue).equals(":1") && client.subscribedChannels() > 0);

            loss.onlyItsConnection().lose(how, () -> lock.unlock()).get(30, TimeUnit.SECONDS);
            long released = System.nanoTime();

            long got = waiter.get();
            assertThat(got).as(how + ": the waiter got the lock").isPositive();
            assertThat(Duration.ofNanos(got - released))
                    .as(how + ": handed over, not found by the waiter's last attempt at the end of its wait")
                    .isLessThan(Duration.ofSeconds(15));
            assertThat(lockKeys(redis.server(), name))
                    .as(how + ": nothing left")
                    .isEmpty();
            assertThat(events.leaseLosses(name)).isEmpty();
        }
    }

    /**
     * Renewals every 300 ms (900 ms watchdog lease); the reply of one is lost with the connection.
     * The hold must survive: renewals are idempotent, and a lost reply is no loss.
     */
    @Test
    void renewalWhoseReplyIsLostIsNoLoss() throws Exception {
        LockClient renewing = LockClient.create(
                RedisURI.create(relay.uri()),
                LockClientOptions.builder()
                        .watchdogLease(Duration.ofSeconds(3))
                        .listener(events)
                        .build());
        closeables.add(renewing);
        String name = Names.fresh("lost-renewal");
        RedisLock lock = renewing.getLock(name);
        owner.act(() -> lock.lock());
        for (Drop how : Drop.values()) {
            relay.holdReplies();
            awaitReplyHeld(); // the watchdog's next renewal ran in Redis
            relay.drop(how);
        }
        long after = System.nanoTime();
        await("two more leases pass")
                .atMost(Duration.ofSeconds(15))
                .until(() -> System.nanoTime() - after > 6_000_000_000L);
        assertThat(events.leaseLosses(name)).as("no loss reported").isEmpty();
        assertThat(owner.run(lock::isHeldByCurrentThread)).isTrue();
        assertThat(lockKeys(redis.server(), name)).hasSize(1);
        unlock(lock);
        assertThat(lockKeys(redis.server(), name)).isEmpty();
    }

    /**
     * forceUnlock() of a held lock whose reply is lost: the re-sent script finds the lock already
     * gone. The issue asks that a re-run returns its first answer, so the caller still learns that it
     * freed a held lock.
     */
    @ParameterizedTest
    @EnumSource(Drop.class)
    void forceUnlockWhoseReplyIsLostStillReportsThatItFreedTheLock(Drop how) throws Exception {
        String name = Names.fresh("lost-force");
        try (LockClient holderClient =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            RedisLock lock = client.getLock(name);
            assertThat(client.getLock(Names.fresh("warm-up")).forceUnlock())
                    .as("loads the script; nothing to free")
                    .isFalse();
            holderClient.getLock(name).lock();

            Future<Boolean> forcing = loss.lose(how, () -> true, lock::forceUnlock);

            assertThat(forcing.get(30, TimeUnit.SECONDS))
                    .as(how + ": forceUnlock() freed a held lock")
                    .isTrue();
            assertThat(lockKeys(redis.server(), name)).isEmpty();
        }
    }

    /**
     * A RedLock over three Redis servers, each behind its own relay: every node's grant reply is
     * held, then every connection dropped. The RedLock must count one hold or give all grants back.
     */
    @ParameterizedTest
    @EnumSource(Drop.class)
    void redLockWhoseRepliesAreLostOnEveryNodeIsCountedOnceOrGivenBack(Drop how) throws Exception {
        String name = Names.fresh("lost-redlock");
        RelayedRedLock redLock = relayedRedLock(name);
        List<RedisServer> servers = redLock.servers();
        List<FaultRelay> relays = redLock.relays();
        RedisLock lock = redLock.lock();

        relays.forEach(FaultRelay::holdReplies);
        Future<Void> locking = owner.start(() -> lock.lock());
        await("every node answered and its reply is held")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> relays.stream().allMatch(r -> r.pendingReplyBytes() > 0));
        relays.forEach(r -> r.drop(how));

        try {
            locking.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(LockException.class);
            try {
                await("grants given back on every node")
                        .atMost(Duration.ofSeconds(15))
                        .until(() ->
                                servers.stream().allMatch(s -> lockKeys(s, name).isEmpty()));
            } catch (org.awaitility.core.ConditionTimeoutException timedOut) {
                throw new AssertionError(
                        "lock() failed with " + e.getCause() + "\nand its grants were not given back within 15 s:\n"
                                + describe(servers, name),
                        timedOut);
            }
            return;
        }
        assertThat(owner.run(lock::getHoldCount)).isEqualTo(1);
        unlock(lock);
        // unlock() returns once a majority released; the last node's release may still be on its way
        await("released on every node")
                .atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(servers)
                        .allSatisfy(s -> assertThat(lockKeys(s, name))
                                .as("keys on %s", s)
                                .isEmpty()));
        assertThat(events.leaseLosses(name)).isEmpty();
    }

    /**
     * A RedLock whose grant reply is lost on one node of three: the majority grants, and the
     * minority node's grant, which its owner never saw, must not outlive the unlock.
     */
    @Test
    void redLockWhoseReplyIsLostOnOneNodeLeavesNothingOnItAfterUnlock() throws Exception {
        String name = Names.fresh("lost-redlock-minority");
        RelayedRedLock redLock = relayedRedLock(name);
        List<RedisServer> servers = redLock.servers();
        List<FaultRelay> relays = redLock.relays();
        RedisLock lock = redLock.lock();

        FaultRelay lossy = relays.get(0);
        lossy.holdReplies();
        Future<Void> locking = owner.start(() -> lock.lock());
        await("the minority node answered and its reply is held")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> lossy.pendingReplyBytes() > 0
                        && !lockKeys(servers.get(0), name).isEmpty());
        lossy.drop(Drop.RST);

        locking.get(30, TimeUnit.SECONDS);
        assertThat(owner.run(lock::getHoldCount)).isEqualTo(1);
        owner.act(lock::unlock);
        try {
            await("nothing left on any node after unlock")
                    .atMost(Duration.ofSeconds(10))
                    .until(() ->
                            servers.stream().allMatch(s -> lockKeys(s, name).isEmpty()));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("left 10 s after unlock() returned:\n" + describe(servers, name), e);
        }
        assertThat(events.leaseLosses(name)).isEmpty();
    }

    /** Three Redis servers, each behind its own relay, and a RedLock over them whose scripts are loaded. */
    private record RelayedRedLock(List<RedisServer> servers, List<FaultRelay> relays, RedisLock lock) {}

    private RelayedRedLock relayedRedLock(String name) {
        List<RedisServer> servers = List.of(redis.server(), redis.startAnother(), redis.startAnother());
        List<FaultRelay> relays = servers.stream().map(FaultRelay::to).toList();
        closeables.addAll(relays);
        RedLockClient redLock = RedLockClient.connect(
                relays.stream().map(r -> RedisURI.create(r.uri())).toList(),
                LockClientOptions.builder().listener(events).build());
        closeables.add(redLock);
        RedisLock lock = redLock.getLock(name);
        owner.act(() -> {
            lock.lock();
            lock.unlock();
        });
        return new RelayedRedLock(servers, relays, lock);
    }

    /** The lock's keys left on each server, with their fields and TTL, for failure messages. */
    private static String describe(List<RedisServer> servers, String name) {
        StringBuilder left = new StringBuilder();
        for (RedisServer s : servers) {
            for (String key : lockKeys(s, name)) {
                left.append(s)
                        .append(' ')
                        .append(key)
                        .append(" = ")
                        .append(s.query("HGETALL", key).replace('\n', ' '))
                        .append(", PTTL ")
                        .append(s.command("PTTL", key))
                        .append('\n');
            }
        }
        return left.toString();
    }

    /** A lock of {@code kind} whose scripts are loaded in Redis, so that a held reply is a script's answer, not NOSCRIPT. */
    private RedisLock warmedUp(Kind kind, String name) {
        RedisLock lock = kind.lock.apply(client, name);
        owner.act(() -> {
            lock.lock();
            lock.lock();
            lock.unlock();
            lock.unlock();
        });
        assertThat(lockKeys(redis.server(), name))
                .as("nothing left by the warm-up")
                .isEmpty();
        return lock;
    }

    private void unlock(RedisLock lock) {
        owner.act(() -> lock.unlock());
    }

    private void awaitReplyHeld() {
        await("Redis answered and the relay holds the reply")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> relay.pendingReplyBytes() > 0);
    }

    /** The lock's keys in Redis apart from its fencing counter and short-lived release notes. */
    private static List<String> lockKeys(RedisServer server, String name) {
        String keys = server.query("KEYS", LockClientOptions.DEFAULT_KEY_PREFIX + "{" + name + "}*");
        return java.util.Arrays.stream(keys.split("\n"))
                .filter(k -> !k.isBlank())
                .filter(k -> !k.endsWith(":fence") && !k.contains(":released:"))
                .toList();
    }
}
