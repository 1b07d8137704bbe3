package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Interrupts, as {@link java.util.concurrent.locks.Lock} specifies them: lockInterruptibly and
 * tryLock(wait) give up with InterruptedException, lock() ignores interrupts and keeps the flag.
 */
@BehaviourTest
class RedisLockInterruptTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final RecordingListener events = new RecordingListener();
    private LockClient holderClient;
    private LockClient waiterClient;
    private String name;
    private RedisLock held;

    @BeforeEach
    void setUp() {
        holderClient = LockClient.create(RedisURI.create(redis.server().uri()));
        waiterClient = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().listener(events).build());
        name = Names.fresh("interrupt");
        held = holderClient.getLock(name);
    }

    @AfterEach
    void tearDown() {
        holderClient.close();
        waiterClient.close();
    }

    @Test
    void lockInterruptiblyThrowsWhenInterruptedWhileWaiting() throws Exception {
        held.lock();
        RedisLock lock = waiterClient.getLock(name);
        OtherThread<Void> waiter = OtherThread.start(() -> {
            lock.lockInterruptibly();
            return null;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> waiterClient.subscribedChannels() == 1);

        waiter.thread.interrupt();

        assertThat(waiter.failure()).isInstanceOf(InterruptedException.class);
        assertGaveUpCleanly();
    }

    @Test
    void tryLockWithWaitThrowsWhenInterruptedWhileWaiting() throws Exception {
        held.lock();
        RedisLock lock = waiterClient.getLock(name);
        OtherThread<Boolean> waiter = OtherThread.start(() -> lock.tryLock(Duration.ofSeconds(25)));
        await().atMost(Duration.ofSeconds(5)).until(() -> waiterClient.subscribedChannels() == 1);

        long interrupted = System.nanoTime();
        waiter.thread.interrupt();

        assertThat(waiter.failure()).isInstanceOf(InterruptedException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - interrupted)).isLessThan(Duration.ofSeconds(5));
        assertGaveUpCleanly();
    }

    @Test
    void tryLockWithWaitOnABusyLockThrowsWhenInterruptedOnEntry() throws Exception {
        held.lock();
        RedisLock lock = waiterClient.getLock(name);

        Throwable error = OtherThread.failure(() -> {
            Thread.currentThread().interrupt();
            return lock.tryLock(10, TimeUnit.SECONDS);
        });

        assertThat(error).isInstanceOf(InterruptedException.class);
        assertGaveUpCleanly();
    }

    @Test
    void lockInterruptiblyAndTimedTryLockThrowWhenInterruptedOnEntryEvenIfTheLockIsFree() throws Exception {
        RedisLock lock = waiterClient.getLock(name);

        Throwable fromLockInterruptibly = OtherThread.failure(() -> {
            Thread.currentThread().interrupt();
            lock.lockInterruptibly();
            return null;
        });
        Throwable fromTryLock = OtherThread.failure(() -> {
            Thread.currentThread().interrupt();
            return lock.tryLock(Duration.ofSeconds(1));
        });

        assertThat(fromLockInterruptibly).isInstanceOf(InterruptedException.class);
        assertThat(fromTryLock).isInstanceOf(InterruptedException.class);
        assertThat(lock.isLocked())
                .as("an interrupted caller must not be left holding the lock")
                .isFalse();
    }

    @Test
    void lockIgnoresAnInterruptPendingOnEntryAndKeepsTheFlag() throws Exception {
        held.lock();
        RedisLock lock = waiterClient.getLock(name);
        OtherThread<Boolean> waiter = OtherThread.start(() -> {
            Thread.currentThread().interrupt();
            lock.lock();
            boolean stillInterrupted = Thread.currentThread().isInterrupted();
            lock.unlock();
            return stillInterrupted;
        });
        await().atMost(Duration.ofSeconds(5))
                .until(() -> waiter.result.isDone() || waiterClient.subscribedChannels() == 1);

        held.unlock();

        assertThat(waiter.get()).as("acquired, with the interrupt flag kept").isTrue();
    }

    @Test
    void lockIgnoresAnInterruptWhileWaitingAndKeepsTheFlag() throws Exception {
        held.lock();
        RedisLock lock = waiterClient.getLock(name);
        OtherThread<Boolean> waiter = OtherThread.start(() -> {
            lock.lock();
            boolean stillInterrupted = Thread.currentThread().isInterrupted();
            lock.unlock();
            return stillInterrupted;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> waiterClient.subscribedChannels() == 1);

        waiter.thread.interrupt();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> !waiter.result.isDone());
        held.unlock();

        assertThat(waiter.get()).as("acquired, with the interrupt flag kept").isTrue();
    }

    private void assertGaveUpCleanly() {
        assertThat(waiterClient.activeHolds()).isZero();
        assertThat(held.isLocked()).isTrue();
        assertThat(waiterClient.subscribedChannels()).isZero();
        assertThat(events.acquires(name))
                .extracting(RecordingListener.Acquire::outcome)
                .containsExactly(AcquireOutcome.ERROR);
    }
}
