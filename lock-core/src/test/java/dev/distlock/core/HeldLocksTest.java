package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** LockClient.heldLocks(): what operators see of a client's holds, thread-bound and handle-owned. */
@BehaviourTest
class HeldLocksTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void listsEveryValidHoldWithOwnerTokenCountAndLeaseAndForgetsReleasedOnes() throws Exception {
        try (LockClient client =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            Instant before = Instant.now().minusMillis(5);
            String name = Names.fresh("held");
            RedisLock lock = client.getLock(name, "reports");
            lock.lock();
            lock.lock();
            LockHandle handle = client.getReadWriteLock(Names.fresh("held-rw"))
                    .readLock()
                    .tryLockAsync(Waits.GRANTED, Duration.ofMinutes(2))
                    .toCompletableFuture()
                    .get(5, TimeUnit.SECONDS)
                    .orElseThrow();

            assertThat(client.heldLocks()).hasSize(2);
            HeldLock mine = client.heldLocks().get(0);
            assertThat(mine.lock()).isEqualTo(new LockInfo(name, "reports", LockType.REENTRANT));
            assertThat(mine.ownerThread()).isEqualTo(Thread.currentThread().getName());
            assertThat(mine.since()).isBetween(before, Instant.now());
            assertThat(mine.fencingToken()).isEqualTo(lock.currentFencingToken());
            assertThat(mine.holdCount()).isEqualTo(2);
            assertThat(mine.watchdog()).isTrue();
            assertThat(mine.validFor()).isPositive();

            HeldLock handles = client.heldLocks().get(1);
            assertThat(handles.lock().type()).isEqualTo(LockType.READ);
            assertThat(handles.ownerThread())
                    .as("a handle's hold has no thread")
                    .isNull();
            assertThat(handles.fencingToken()).isEqualTo(handle.fencingToken());
            assertThat(handles.watchdog()).isFalse();
            assertThat(handles.validFor()).isBetween(Duration.ofSeconds(1), Duration.ofMinutes(2));

            lock.unlock();
            lock.unlock();
            handle.unlock();
            assertThat(client.heldLocks()).isEmpty();
        }
    }
}
