package dev.distlock.spring.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.spring.annotation.LockType;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The in-JVM locks of distributed-lock.mode=local keep the Redis locks' rules. */
class LocalLocksTest {

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final LocalLocks locks = new LocalLocks(
            List.of(new LockListener() {
                @Override
                public void onAcquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {
                    events.add("acquire " + lock.key() + " " + outcome);
                }

                @Override
                public void onRelease(LockInfo lock, Duration held) {
                    events.add("release " + lock.key());
                }

                @Override
                public void onLeaseLost(LockInfo lock, String reason) {
                    events.add("lost " + lock.key());
                }
            }),
            Duration.ofSeconds(30),
            false,
            1024);

    @AfterEach
    void close() {
        locks.close();
    }

    @Test
    void reentrantPerThreadWithOneTokenAndEventsOnlyForTheFirstAcquireAndLastRelease() throws Exception {
        RedisLock lock = locks.lock(LockType.REENTRANT, false, "a", "label");
        lock.lock();
        long token = lock.currentFencingToken();
        assertThat(lock.tryLock(Duration.ZERO)).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.currentFencingToken()).isEqualTo(token);
        assertThat(CompletableFuture.supplyAsync(lock::tryLock).join())
                .as("another thread")
                .isFalse();
        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("only the owner");
        assertThat(events).containsExactly("acquire a ACQUIRED", "acquire a TIMEOUT", "release a");
        lock.lock();
        assertThat(lock.currentFencingToken()).isGreaterThan(token);
        lock.unlock();
    }

    @Test
    void fairLockGrantsInArrivalOrder() throws Exception {
        RedisLock holder = locks.lock(LockType.FAIR, false, "queue", "q");
        holder.lock();
        List<String> order = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> takeAndRecord("first", order));
        await().atMost(Duration.ofSeconds(10)).until(() -> locks.queued("queue") == 1);
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> takeAndRecord("second", order));
        await().atMost(Duration.ofSeconds(10)).until(() -> locks.queued("queue") == 2);
        holder.unlock();
        CompletableFuture.allOf(first, second).join();
        assertThat(order).containsExactly("first", "second");
    }

    private void takeAndRecord(String who, List<String> order) {
        RedisLock lock = locks.lock(LockType.FAIR, false, "queue", "q");
        try {
            assertThat(lock.tryLock(Duration.ofSeconds(20))).isTrue();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        order.add(who);
        lock.unlock();
    }

    @Test
    void fixedLeaseEndsTheHoldReportsItAndFreesTheLock() {
        RedisLock lock = locks.lock(LockType.REENTRANT, false, "lease", "l");
        lock.lock(Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("lost lease"));
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(CompletableFuture.supplyAsync(lock::tryLock).join())
                .as("free for others")
                .isTrue();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LockLeaseExpiredException.class)
                .hasMessageContaining("'lease' was lost while held");
    }

    @Test
    void forceUnlockTakesTheLockFromItsHolder() {
        RedisLock lock = locks.lock(LockType.WRITE, false, "doc", "d");
        lock.lock();
        assertThat(locks.forceUnlock("doc", "WRITE")).isTrue();
        assertThat(events).contains("lost doc");
        assertThat(locks.forceUnlock("doc", "WRITE")).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLeaseExpiredException.class);
    }

    @Test
    void multiLockTakesAllOrNothingInSortedOrder() throws Exception {
        RedisLock b = locks.lock(LockType.REENTRANT, false, "b", "m");
        CompletableFuture<Void> holdB = new CompletableFuture<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
            b.lock();
            holdB.complete(null);
            done.join();
            b.unlock();
        });
        holdB.join();
        RedisMultiLock multi = locks.multiLock(List.of("b", "a"), "m");
        assertThat(multi.keys()).containsExactly("a", "b");
        assertThat(multi.tryLock(Duration.ofMillis(50))).isFalse();
        assertThat(locks.lock(LockType.REENTRANT, false, "a", "m").isLocked())
                .as("a given back")
                .isFalse();
        done.complete(null);
        other.join();
        assertThat(multi.tryLock(Duration.ofSeconds(5))).isTrue();
        assertThat(multi.fencingTokens()).containsOnlyKeys("a", "b");
        multi.unlock();
        assertThat(locks.activeHolds()).isZero();
    }

    @Test
    void badNamesFailAsInRedisMode() {
        assertThatThrownBy(() -> locks.lock(LockType.REENTRANT, false, " ", "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.lock(LockType.REENTRANT, false, "a\nb", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("control character U+000A");
        assertThatThrownBy(() -> locks.lock(LockType.REENTRANT, false, "x".repeat(1025), "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("over the limit of 1024");
    }

    @Test
    void holdAtLeastKeepsTheLocalLockTakenByNobodyUntilThenAsTheRedisLockDoes() throws Exception {
        RedisLock lock = locks.lock(LockType.REENTRANT, false, "kept", "label");
        lock.lock();
        long granted = System.nanoTime();

        lock.unlock(Duration.ofMillis(800));

        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.tryLock()).as("not even this thread re-enters").isFalse();
        assertThat(CompletableFuture.supplyAsync(() -> {
                            try {
                                boolean got = lock.tryLock(Duration.ofSeconds(10));
                                lock.unlock();
                                return got;
                            } catch (InterruptedException e) {
                                throw new IllegalStateException(e);
                            }
                        })
                        .join())
                .as("another thread gets it when the time is up")
                .isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - granted)).isGreaterThanOrEqualTo(Duration.ofMillis(750));

        RedisLock fair = locks.lock(LockType.FAIR, false, "kept-fair", "label");
        fair.lock();
        assertThatThrownBy(() -> fair.unlock(Duration.ofSeconds(1)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("holdAtLeast is supported by reentrant locks");
        assertThat(fair.isHeldByCurrentThread()).isTrue();
        fair.unlock();
    }
}
