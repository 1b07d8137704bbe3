package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.answered;
import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * unlock(holdAtLeast): a job that finished early keeps the lock taken, by nobody, until holdAtLeast
 * after its grant, so an instance whose trigger fires a little later cannot run it again.
 */
@BehaviourTest
class HoldAtLeastTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration KEEP = Duration.ofSeconds(2);

    private LockClient client;
    private LockClient otherInstance;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(RedisURI.create(redis.server().uri()));
        otherInstance = LockClient.create(RedisURI.create(redis.server().uri()));
        name = Names.fresh("keep");
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherInstance.close();
    }

    @Test
    void aJobThatEndsEarlyKeepsEveryoneOutUntilHoldAtLeastAfterItsGrant() throws Exception {
        RedisLock lock = client.getLock(name);
        // The client counts holdAtLeast from when it sent the granting request: no later than this.
        long sent = System.nanoTime();
        assertThat(tryOnce(lock)).isTrue();
        long token = lock.currentFencingToken();

        lock.unlock(KEEP);

        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.isLocked()).as("still taken in Redis").isTrue();
        assertThat(lock.remainingLease()).isBetween(Duration.ofMillis(1), KEEP);
        assertThat(tryOnce(lock)).as("not even this thread re-enters").isFalse();
        RedisLock elsewhere = otherInstance.getLock(name);
        assertThat(OtherThread.call(() -> tryOnce(elsewhere)))
                .as("the other instance's trigger fires later")
                .isFalse();

        // A waiter is not woken by a message (there is none) but takes it when the time is up.
        assertThat(OtherThread.call(() -> {
                    boolean got = elsewhere.tryLock(Duration.ofSeconds(10));
                    long tokenThere = got ? elsewhere.currentFencingToken() : -1;
                    if (got) {
                        elsewhere.unlock();
                    }
                    return tokenThere;
                }))
                .as("granted once the kept time ended, with a larger token")
                .isGreaterThan(token);
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
        // Counted from before the request went out, however slow its reply: only Redis's whole milliseconds
        // may take a little off.
        assertThat(waited).as("not before holdAtLeast").isGreaterThanOrEqualTo(KEEP.toMillis() - 2);
        assertThat(waited)
                .as("taken when the time is up, not at the end of the wait")
                .isLessThan(8_000);
    }

    @Test
    void aJobThatRanLongerThanHoldAtLeastFreesTheLockAtOnce() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        Thread.sleep(300);

        lock.unlock(Duration.ofMillis(100));

        assertThat(lock.isLocked()).isFalse();
        assertThat(OtherThread.call(() -> tryOnce(otherInstance.getLock(name)))).isTrue();
    }

    @Test
    void aFixedLeaseEndingFirstStillEndsTheLock() throws Exception {
        RedisLock lock = client.getLock(name);
        assertThat(answered(() -> lock.tryLock(Duration.ZERO, Duration.ofSeconds(1))))
                .isTrue();

        lock.unlock(Duration.ofMinutes(5));

        assertThat(lock.remainingLease()).isBetween(Duration.ofMillis(1), Duration.ofSeconds(1));
    }

    @Test
    void aWatchdogLeaseDoesNotCutHoldAtLeastShort() throws Exception {
        // Short beside holdAtLeast, yet long enough that a loaded host's late renewal or late unlock never
        // loses the hold first; holdAtLeast leaves a loaded host seconds between its checks.
        Duration watchdogLease = Duration.ofSeconds(2);
        Duration holdAtLeast = Duration.ofSeconds(10);
        LockClientOptions shortLease =
                LockClientOptions.builder().watchdogLease(watchdogLease).build();
        try (LockClient job = LockClient.create(RedisURI.create(redis.server().uri()), shortLease)) {
            RedisLock lock = job.getLock(name);
            lock.lock();

            lock.unlock(holdAtLeast);

            assertThat(lock.remainingLease())
                    .as("the whole holdAtLeast, not what the watchdog lease had left")
                    .isGreaterThan(watchdogLease.multipliedBy(2));
            Thread.sleep(watchdogLease.multipliedBy(2).toMillis()); // past two watchdog leases
            assertThat(OtherThread.call(() -> tryOnce(otherInstance.getLock(name))))
                    .as("still kept out after the watchdog lease would have ended")
                    .isFalse();
        }
    }

    @Test
    void onlyTheLastReleaseOfAReentrantHoldKeepsTheLock() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        lock.lock();

        lock.unlock(KEEP);
        assertThat(lock.getHoldCount()).isEqualTo(1);

        lock.unlock(KEEP);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(OtherThread.call(() -> tryOnce(otherInstance.getLock(name)))).isFalse();
    }

    @Test
    void handlesAndMultiLocksKeepEveryName() throws Exception {
        Optional<LockHandle> handle = client.getLock(name)
                .tryLockAsync(Waits.GRANTED)
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS);
        assertThat(handle).isPresent();
        handle.get().unlockAsync(KEEP).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(handle.get().isHeld()).isFalse();
        assertThat(OtherThread.call(() -> tryOnce(otherInstance.getLock(name)))).isFalse();

        String a = Names.fresh("keep-a");
        String b = Names.fresh("keep-b");
        RedisMultiLock multi = client.getMultiLock(a, b);
        multi.lock();
        multi.unlock(KEEP);
        assertThat(OtherThread.call(() -> tryOnce(otherInstance.getLock(a)))).isFalse();
        assertThat(OtherThread.call(() -> tryOnce(otherInstance.getLock(b)))).isFalse();
    }

    @Test
    void otherKindsRefuseHoldAtLeastAndKeepTheirHold() throws Exception {
        RedisLock fair = client.getFairLock(name);
        fair.lock();
        assertThatThrownBy(() -> fair.unlock(KEEP))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("holdAtLeast is supported by reentrant locks");
        assertThat(fair.isHeldByCurrentThread()).as("nothing released").isTrue();
        fair.unlock();

        RedisLock write = client.getReadWriteLock(Names.fresh("keep-rw")).writeLock();
        LockHandle handle = write.lockAsync().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> handle.unlockAsync(KEEP)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(handle.isHeld()).as("the handle is not released").isTrue();
        handle.unlock();

        RedisLock reentrant = client.getLock(Names.fresh("keep-a"));
        RedisLock fairToo = client.getFairLock(Names.fresh("keep-b"));
        RedisMultiLock mixed = RedisMultiLock.of(List.of(reentrant, fairToo));
        mixed.lock();
        assertThatThrownBy(() -> mixed.unlock(KEEP)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(reentrant.isHeldByCurrentThread())
                .as("no lock of the multi-lock released before the refusal")
                .isTrue();
        mixed.unlock();
        assertThat(reentrant.isLocked()).isFalse();
        assertThatThrownBy(() -> RedisMultiLock.of(java.util.Arrays.asList(reentrant, null)))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("locks must not contain null");
    }

    @Test
    void badHoldAtLeastIsRefusedBeforeAnythingIsReleased() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        assertThatThrownBy(() -> lock.unlock(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("holdAtLeast of lock '" + name + "' must be at least 0 ms");
        assertThatThrownBy(() -> lock.unlock(Duration.ofDays(400)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 365 days");
        assertThatThrownBy(() -> lock.unlock(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("holdAtLeast");
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock(Duration.ZERO);
        assertThat(lock.isLocked()).as("ZERO is a plain unlock").isFalse();
    }
}
