package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour every exclusive kind shares, run against each: acquire, re-entry, owner-only
 * release, watchdog renewal, wake-up on release, lease-loss reporting.
 */
class LockContractTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration LEASE = Duration.ofMillis(600);

    private final RecordingListener events = new RecordingListener();
    private LockClient client;
    private LockClient other;
    private LockClient operator;

    static Stream<Arguments> kinds() {
        BiFunction<LockClient, String, RedisLock> reentrant = LockClient::getLock;
        BiFunction<LockClient, String, RedisLock> fair = LockClient::getFairLock;
        BiFunction<LockClient, String, RedisLock> write =
                (c, n) -> c.getReadWriteLock(n).writeLock();
        BiFunction<LockClient, String, RedisLock> multi = (c, n) -> c.getMultiLock(n + ":1", n + ":2");
        return Stream.of(
                Arguments.of("reentrant", reentrant),
                Arguments.of("fair", fair),
                Arguments.of("write", write),
                Arguments.of("multi", multi));
    }

    @BeforeEach
    void connect() {
        client = open(LockClientOptions.builder()
                .watchdogLease(LEASE)
                .listener(events)
                .build());
        other = open(LockClientOptions.defaults());
        operator = open(LockClientOptions.defaults());
    }

    /** A client on the topology under test: standalone here, overridden for Redis Cluster. */
    LockClient open(LockClientOptions options) {
        return LockClient.create(RedisURI.create(redis.server().uri()), options);
    }

    @AfterEach
    void close() {
        client.close();
        other.close();
        operator.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void acquiresReentersAndReleasesOnlyForTheOwner(String kind, BiFunction<LockClient, String, RedisLock> locks)
            throws Exception {
        String name = Names.fresh(kind);
        RedisLock lock = locks.apply(client, name);
        assertThat(lock.tryLock(Duration.ofSeconds(1))).isTrue();
        long token = lock.currentFencingToken();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.currentFencingToken()).isEqualTo(token);
        assertThat(OtherThread.call(() -> locks.apply(other, name).tryLock()))
                .as("another owner is kept out")
                .isFalse();
        assertThat(OtherThread.failure(() -> {
                    lock.unlock();
                    return null;
                }))
                .isInstanceOf(IllegalMonitorStateException.class);
        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void watchdogKeepsTheLockPastThreeLeasesAndStopsAtUnlock(
            String kind, BiFunction<LockClient, String, RedisLock> locks) throws Exception {
        String name = Names.fresh(kind);
        RedisLock lock = locks.apply(client, name);
        lock.lock();
        long until = System.nanoTime() + LEASE.multipliedBy(4).toNanos();
        while (System.nanoTime() < until) {
            assertThat(OtherThread.call(() -> locks.apply(other, name).tryLock()))
                    .isFalse();
            Thread.sleep(LEASE.toMillis() / 2);
        }
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        Thread.sleep(LEASE.toMillis());
        assertThat(locks.apply(other, name).isLocked())
                .as("no renewal revived it")
                .isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aWaiterOfAnotherClientWakesOnReleaseLongBeforeTheLease(
            String kind, BiFunction<LockClient, String, RedisLock> locks) throws Exception {
        String name = Names.fresh(kind);
        try (LockClient longLease = open(LockClientOptions.defaults())) { // 30 s watchdog lease
            RedisLock held = locks.apply(longLease, name);
            held.lock();
            OtherThread<Long> waiter = OtherThread.start(() -> {
                RedisLock lock = locks.apply(other, name);
                assertThat(lock.tryLock(Duration.ofSeconds(25))).isTrue();
                long at = System.nanoTime();
                lock.unlock();
                return at;
            });
            // it waits, listening for the release; without this it might find the lock already free
            await().atMost(Duration.ofSeconds(10)).until(() -> other.subscribedChannels() > 0);
            assertThat(waiter.result).isNotDone();
            long released = System.nanoTime();
            held.unlock();
            assertThat(Duration.ofNanos(waiter.get() - released)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aLockDeletedUnderItsHolderIsReportedLostOnce(String kind, BiFunction<LockClient, String, RedisLock> locks)
            throws InterruptedException {
        String name = Names.fresh(kind);
        RedisLock lock = locks.apply(client, name);
        lock.lock();
        assertThat(locks.apply(operator, name).forceUnlock()).isTrue();
        await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLeaseExpiredException.class);
        long expected = lock instanceof RedisMultiLock m ? m.keys().size() : 1;
        // The renewal that finds the lock gone marks the hold lost (what the unlock above sees) and then tells
        // the listeners, on its own thread: the event may come a moment after the unlock threw.
        await().atMost(Duration.ofSeconds(5)).until(() -> lossesOf(name) >= expected);
        Thread.sleep(LEASE.toMillis()); // a second report would come with the next renewal round or the unlock
        assertThat(lossesOf(name)).as("once per lock name held").isEqualTo(expected);
    }

    private long lossesOf(String name) {
        return events.leaseLosses.stream()
                .filter(l -> l.lock().key().startsWith(name))
                .count();
    }
}
