package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Contenders;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A wait longer than {@link RedisLock#MAX_DURATION} saturates to "for ever", as with
 * {@code java.util.concurrent} locks (issue 48, 4a); a lease keeps its limit.
 */
@Timeout(60)
@BehaviourTest
class EndlessWaitTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** The usual spelling of "wait for ever" with a Duration. */
    private static final Duration ENDLESS = Duration.ofSeconds(Long.MAX_VALUE);

    private LockClient holderClient;
    private LockClient waiterClient;
    private String name;

    @BeforeEach
    void setUp() {
        holderClient = LockClient.create(RedisURI.create(redis.server().uri()));
        waiterClient = LockClient.create(RedisURI.create(redis.server().uri()));
        name = Names.fresh("endless");
    }

    @AfterEach
    void tearDown() {
        holderClient.close();
        waiterClient.close();
    }

    @Test
    void anEndlessWaitTakesAFreeLock() throws Exception {
        RedisLock lock = waiterClient.getLock(name);

        assertThat(lock.tryLock(ENDLESS)).isTrue();
        lock.unlock();
        assertThat(lock.tryLock(ChronoUnit.FOREVER.getDuration(), Duration.ofSeconds(5)))
                .isTrue();
        assertThat(lock.remainingLease()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5));
        lock.unlock();
        assertThat(lock.tryLock(RedisLock.MAX_DURATION.plusMillis(1))).isTrue();
        lock.unlock();
    }

    @Test
    void anEndlessWaitWaitsForABusyLock() throws Exception {
        RedisLock held = holderClient.getLock(name);
        held.lock();
        OtherThread<Boolean> waiter = Contenders.takesAndReleases(() -> waiterClient.getLock(name), ENDLESS);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> waiter.result.isDone() || waiterClient.subscribedChannels() == 1);
        assertThat(waiter.result).as("still waiting while the lock is held").isNotDone();

        held.unlock();

        assertThat(waiter.get()).isTrue();
    }

    @Test
    void anEndlessAsyncWaitTakesAFreeLockAndWaitsForABusyOne() throws Exception {
        RedisLock lock = waiterClient.getLock(name);
        Optional<LockHandle> free =
                lock.tryLockAsync(ENDLESS).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(free).isPresent();
        free.get().unlock();

        RedisLock held = holderClient.getLock(name);
        held.lock();
        CompletableFuture<Optional<LockHandle>> waiting =
                lock.tryLockAsync(ENDLESS, Duration.ofSeconds(20)).toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(() -> waiting.isDone() || waiterClient.subscribedChannels() == 1);
        assertThat(waiting).as("still waiting while the lock is held").isNotDone();

        held.unlock();

        Optional<LockHandle> handle = waiting.get(10, TimeUnit.SECONDS);
        assertThat(handle).isPresent();
        handle.get().unlock();
    }

    @Test
    void anEndlessWaitOfAMultiLockTakesItsLocks() throws Exception {
        RedisMultiLock multi = waiterClient.getMultiLock(name + "-a", name + "-b");

        assertThat(multi.tryLock(ENDLESS)).isTrue();
        multi.unlock();
        Optional<LockHandle> handle =
                multi.tryLockAsync(ENDLESS).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(handle).isPresent();
        handle.get().unlock();
        assertThat(multi.tryLock(Long.MAX_VALUE, TimeUnit.DAYS)).isTrue();
        multi.unlock();
    }

    @Test
    void leasesAndNegativeWaitsKeepTheirLimits() {
        RedisLock lock = waiterClient.getLock(name);

        assertThatThrownBy(() -> lock.tryLock(ENDLESS, ENDLESS))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease")
                .hasMessageContaining("at most 365 days");
        assertThatThrownBy(() -> lock.tryLockAsync(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
        assertThat(lock.isLocked()).isFalse();
    }
}
