package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RedLockNodes;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Interrupting a thread that waits for a RedLock, as {@link java.util.concurrent.locks.Lock} specifies. */
@BehaviourTest
class RedLockInterruptTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private RedLockNodes nodes;

    @BeforeEach
    void startNodes() {
        nodes = new RedLockNodes(redis);
    }

    @AfterEach
    void closeClients() throws Exception {
        nodes.close();
    }

    @Test
    void interruptEndsATimedWaitWithInterruptedException() throws Exception {
        RedisLock lock = nodes.connect(3).getLock(Names.fresh("interrupt"));
        lock.lock();
        OtherThread<Boolean> waiter = OtherThread.start(() -> lock.tryLock(Duration.ofSeconds(30)));
        await().atMost(Duration.ofSeconds(5)).until(() -> waiter.thread.getState() == Thread.State.TIMED_WAITING);

        waiter.thread.interrupt();

        assertThat(waiter.failure()).isInstanceOf(InterruptedException.class);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
    }

    @Test
    void lockIgnoresAnInterruptButKeepsTheFlag() throws Exception {
        RedisLock lock = nodes.connect(3).getLock(Names.fresh("uninterruptible"));
        lock.lock();
        OtherThread<Boolean> waiter = OtherThread.start(() -> {
            lock.lock();
            boolean flag = Thread.currentThread().isInterrupted();
            lock.unlock();
            return flag;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> waiter.thread.getState() == Thread.State.TIMED_WAITING);

        waiter.thread.interrupt();
        lock.unlock();

        assertThat(waiter.get()).as("interrupt flag restored after lock()").isTrue();
    }
}
