package dev.distlock.testsupport.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.testsupport.Answered;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour every exclusive kind shares, run against each kind a topology makes: acquire, re-entry,
 * owner-only release, watchdog renewal, wake-up on release, lease-loss reporting. A topology's test extends
 * it and says how its locks are made ({@link #maker()}); it registers its own servers, which must be up by
 * the first {@link #maker()} call of a test.
 *
 * <pre>{@code
 * class LockContractTest extends LockContract<LockClient> {
 *     @RegisterExtension
 *     static final RedisExtension redis = new RedisExtension();
 *
 *     protected LockMaker<LockClient> maker() { return new LockClientMaker(...); }
 * }
 * }</pre>
 *
 * @param <C> the topology's client
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS) // the kinds come from the subclass's maker
public abstract class LockContract<C extends AutoCloseable> {

    /**
     * The watchdog lease of the client under test: short, so that renewals and losses come within a test, yet a
     * renewal every third of it rides out a stall of a loaded host of over a second. At 600 ms a fair lock's
     * hold was lost beside two other builds on 2 cores ("no renewal was confirmed within the watchdog lease").
     */
    protected static final Duration LEASE = Duration.ofSeconds(2);

    private LeaseLosses losses = new LeaseLosses();
    private LockMaker<C> maker;
    private C client;
    private C other;
    private C operator;

    /** How the topology under test makes its clients and locks. */
    protected abstract LockMaker<C> maker();

    /** The kinds the maker makes, the parameters of every test. */
    protected Stream<LockKind> kinds() {
        return Arrays.stream(LockKind.values()).filter(kind -> maker().kinds().contains(kind));
    }

    @BeforeEach
    void connect() {
        maker = maker();
        losses = new LeaseLosses();
        client = maker.open(LEASE, losses);
        other = maker.open(null, null);
        operator = maker.open(null, null);
    }

    @AfterEach
    void close() throws Exception {
        client.close();
        other.close();
        operator.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void acquiresReentersAndReleasesOnlyForTheOwner(LockKind kind) throws Exception {
        String name = fresh(kind);
        ContractLock lock = maker.lock(client, kind, name);
        assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
        long token = lock.currentFencingToken();
        lock.lock();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.currentFencingToken()).isEqualTo(token);
        assertThat(OtherThread.call(() -> tryOnce(maker.lock(other, kind, name))))
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

    // Four leases and one more per kind and topology (10 s): the full lane's. The fast lane still sees the
    // watchdog renew in RedisLockLeaseTest, ReadWriteLockLeaseTest and RedLockWatchdogTest.
    @SlowTest
    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void watchdogKeepsTheLockPastThreeLeasesAndStopsAtUnlock(LockKind kind) throws Exception {
        String name = fresh(kind);
        ContractLock lock = maker.lock(client, kind, name);
        lock.lock();
        // One try that waits through four leases: it would be let in at any moment the watchdog let the lock
        // lapse, where tries without a wait, every half lease, saw moments only.
        assertThat(OtherThread.call(() -> maker.lock(other, kind, name).tryLock(LEASE.multipliedBy(4))))
                .isFalse();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        Thread.sleep(LEASE.toMillis());
        assertThat(maker.lock(other, kind, name).isLocked())
                .as("no renewal revived it")
                .isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aWaiterOfAnotherClientWakesOnReleaseLongBeforeTheLease(LockKind kind) throws Exception {
        String name = fresh(kind);
        try (C longLease = maker.open(null, null)) { // 30 s watchdog lease
            ContractLock held = maker.lock(longLease, kind, name);
            held.lock();
            OtherThread<Long> waiter = OtherThread.start(() -> {
                ContractLock lock = maker.lock(other, kind, name);
                assertThat(lock.tryLock(Duration.ofSeconds(25))).isTrue();
                long at = System.nanoTime();
                lock.unlock();
                return at;
            });
            // it waits for the release; without this it might find the lock already free
            maker.awaitWaiting(other, waiter.thread, Duration.ofSeconds(10));
            assertThat(waiter.result).isNotDone();
            long released = System.nanoTime();
            held.unlock();
            assertThat(Duration.ofNanos(waiter.get() - released)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("kinds")
    void aLockDeletedUnderItsHolderIsReportedLostOnce(LockKind kind) throws InterruptedException {
        String name = fresh(kind);
        ContractLock lock = maker.lock(client, kind, name);
        lock.lock();
        assertThat(maker.lock(operator, kind, name).forceUnlock()).isTrue();
        await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(() -> !lock.isHeldByCurrentThread());
        assertThatThrownBy(lock::unlock).isInstanceOf(maker.leaseLost());
        long expected = lock.names();
        // The renewal that finds the lock gone marks the hold lost (what the unlock above sees) and then tells
        // the listeners, on its own thread: the event may come a moment after the unlock threw.
        await().atMost(Duration.ofSeconds(5)).until(() -> losses.of(name) >= expected);
        Thread.sleep(LEASE.toMillis()); // a second report would come with the next renewal round or the unlock
        assertThat(losses.of(name)).as("once per lock name held").isEqualTo(expected);
    }

    /** One try without a wait, sent again while the store's answer does not come in time: its answer. */
    private boolean tryOnce(ContractLock lock) throws Exception {
        return Answered.call(maker.unanswered(), () -> lock.tryLock(Duration.ZERO));
    }

    /** {@code kind} plus a random suffix, so no test sees keys another left behind. */
    private static String fresh(LockKind kind) {
        return kind + "-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
