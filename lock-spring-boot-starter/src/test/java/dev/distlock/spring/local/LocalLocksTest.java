package dev.distlock.spring.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockType;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.Waits;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The in-JVM locks of distlock.mode=local keep the Redis locks' rules. Tests that look into the store's
 * fair queue live in lock-core's LocalLockClientTest, beside the store.
 */
@BehaviourTest
class LocalLocksTest {

    private final List<String> events = new CopyOnWriteArrayList<>();
    private final LocalLocks locks = new LocalLocks(LockClientOptions.builder()
            .listener(new LockListener() {
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
            })
            .build()); // 30 s watchdog lease, no interrupt, names up to 1024 characters

    /** Another thread for work done while a handle holds a lock. */
    private final ExecutorService elsewhere = Executors.newSingleThreadExecutor();

    @AfterEach
    void close() {
        locks.close();
        elsewhere.shutdownNow();
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
    void aWaitAbove365DaysWaitsForEverAsInRedisMode() throws Exception {
        RedisLock lock = locks.lock(LockType.REENTRANT, false, "forever", "label");
        Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
        assertThat(lock.tryLock(forever)).isTrue();
        lock.unlock();
        LockHandle handle = lock.tryLockAsync(forever)
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS)
                .orElseThrow();
        handle.unlock();
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be negative");
    }

    /**
     * lock() is not interruptible: an interrupted waiter waits on without burning CPU, is granted, and has its
     * flag back. (Re-setting the flag inside the wait made every further wait throw at once: the waiter spun
     * holding the state's monitor, so the holder could not even release. On that failure this test leaves
     * its own locks and the spinning daemon thread behind rather than hang on them.)
     */
    @Test
    void anInterruptedLockCallWaitsOnWithoutSpinningAndKeepsItsFlag() throws Exception {
        LocalLocks own = new LocalLocks(LockClientOptions.builder().build());
        RedisLock holder = own.lock(LockType.REENTRANT, false, "patient", "p");
        holder.lock();
        AtomicInteger flagAfterGrant = new AtomicInteger(-1);
        Thread waiter = new Thread(() -> {
            RedisLock lock = own.lock(LockType.REENTRANT, false, "patient", "p");
            lock.lock();
            flagAfterGrant.set(Thread.currentThread().isInterrupted() ? 1 : 0);
            lock.unlock();
        });
        waiter.setDaemon(true);
        waiter.start();
        // parked in lock(): at the local gate or on the wake-up channel, each sleep bounded by the holder's lease
        await().atMost(Waits.GRANTED)
                .until(() ->
                        waiter.getState() == Thread.State.WAITING || waiter.getState() == Thread.State.TIMED_WAITING);
        waiter.interrupt();
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        long before = cpu.getThreadCpuTime(waiter.getId());
        Thread.sleep(500);
        long spent = cpu.getThreadCpuTime(waiter.getId()) - before;
        assertThat(Duration.ofNanos(spent))
                .as("CPU the waiter used in 500 ms after its interrupt")
                .isLessThan(Duration.ofMillis(100));
        assertThat(waiter.isAlive()).as("still waiting").isTrue();
        holder.unlock();
        waiter.join(10_000);
        assertThat(flagAfterGrant).hasValue(1);
        own.close();
    }

    @Test
    void fixedLeaseEndsTheHoldReportsItAndFreesTheLock() {
        RedisLock lock = locks.lock(LockType.REENTRANT, false, "lease", "l");
        lock.lock(Duration.ofMillis(100));
        await().atMost(Waits.GRANTED).until(() -> events.contains("lost lease"));
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(CompletableFuture.supplyAsync(lock::tryLock).join())
                .as("free for others")
                .isTrue();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LockLeaseExpiredException.class)
                .hasMessageContaining("'lease' was lost while held")
                .hasMessageContaining("the explicit lease was shorter than the work")
                .extracting(e -> ((LockLeaseExpiredException) e).getLoss())
                .isEqualTo(LockLeaseExpiredException.Loss.LEASE_RAN_OUT);
    }

    @Test
    void forceUnlockTakesTheLockFromItsHolder() {
        RedisLock lock = locks.lock(LockType.WRITE, false, "doc", "d");
        lock.lock();
        assertThat(locks.forceUnlock("doc", "WRITE")).isTrue();
        assertThat(events).contains("lost doc");
        assertThat(locks.forceUnlock("doc", "WRITE")).isFalse();
        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LockLeaseExpiredException.class)
                .hasMessageContaining("it was force-unlocked")
                .hasMessageNotContaining("explicit lease")
                .extracting(e -> ((LockLeaseExpiredException) e).getLoss())
                .isEqualTo(LockLeaseExpiredException.Loss.FORCE_UNLOCKED);
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

    private static <T> T get(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void handlesWaitInAQueueWithoutAThreadAndHoldOneAtATimeInTokenOrder() throws Exception {
        RedisLock holder = locks.lock(LockType.REENTRANT, false, "queue", "q");
        holder.lock();
        int threadsBefore = Thread.activeCount();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            all.add(locks.lock(LockType.REENTRANT, false, "queue", "q")
                    .tryLockAsync(Duration.ofSeconds(60))
                    .thenCompose(handle -> {
                        LockHandle held = handle.orElseThrow();
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        tokens.add(held.fencingToken());
                        return CompletableFuture.runAsync(
                                        inside::decrementAndGet, elsewhere) // held across a hop to another thread
                                .thenCompose(ignored -> held.unlockAsync());
                    })
                    .toCompletableFuture());
        }
        assertThat(Thread.activeCount() - threadsBefore)
                .as("threads started for 1,000 waiting handles")
                .isLessThan(20);
        assertThat(tokens).as("nobody got the lock while a thread held it").isEmpty();

        holder.unlock();
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertThat(tokens).hasSize(1_000);
        assertThat(overlaps.get()).as("two handles inside at once").isZero();
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).isGreaterThan(tokens.get(i - 1));
        }
        assertThat(locks.activeHolds()).isZero();
    }

    @Test
    void closingTheLocksFailsTheHandlesStillWaiting() throws Exception {
        RedisLock holder = locks.lock(LockType.REENTRANT, false, "closing", "c");
        holder.lock();
        CompletableFuture<Optional<LockHandle>> waiting = locks.lock(LockType.REENTRANT, false, "closing", "c")
                .tryLockAsync(Duration.ofSeconds(30))
                .toCompletableFuture();

        locks.close();

        assertThatThrownBy(() -> get(waiting))
                .hasCauseInstanceOf(LockException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void aHandleIsReleasedOnceFromAnyThreadAndDoesNotReenter() throws Exception {
        RedisLock lock = locks.lock(LockType.REENTRANT, false, "h", "l");
        LockHandle handle = get(lock.tryLockAsync(Duration.ZERO)).orElseThrow();
        assertThat(handle.isHeld()).isTrue();
        assertThat(handle.key()).isEqualTo("h");
        assertThat(get(lock.tryLockAsync(Duration.ofMillis(50))))
                .as("a second acquisition is another owner: it waits, even on this thread")
                .isEmpty();
        assertThat(lock.tryLock()).as("so does this thread").isFalse();

        CompletableFuture.runAsync(handle::unlock).get(10, TimeUnit.SECONDS);

        assertThat(handle.isHeld()).isFalse();
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(handle::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exactly once");
        assertThatThrownBy(() -> get(handle.unlockAsync())).hasCauseInstanceOf(IllegalStateException.class);
        assertThat(events).containsExactly("acquire h ACQUIRED", "acquire h TIMEOUT", "acquire h TIMEOUT", "release h");
    }

    @Test
    void aHandlesFixedLeaseRunsOutIsSignalledAndItsUnlockSaysSo() throws Exception {
        RedisLock lock = locks.lock(LockType.REENTRANT, false, "lease", "l");
        LockHandle handle =
                get(lock.tryLockAsync(Duration.ZERO, Duration.ofMillis(100))).orElseThrow();

        assertThat(get(handle.leaseLost())).contains("lease");
        assertThat(handle.isHeld()).isFalse();
        // The holder's lease clock ran from before the grant reached the store, so the store may keep the key a
        // few ms longer: another caller that waits gets it as soon as it expires there.
        assertThat(get(lock.tryLockAsync(Duration.ofSeconds(30))))
                .as("free for others")
                .isPresent();
        assertThatThrownBy(handle::unlock).isInstanceOf(LockLeaseExpiredException.class);
    }

    @Test
    void readHandlesShareAndAWriteHandleWaitsForThemAll() throws Exception {
        RedisReadWriteLockView doc = new RedisReadWriteLockView(locks, "doc");
        LockHandle first = get(doc.read.tryLockAsync(Duration.ZERO)).orElseThrow();
        LockHandle second = get(doc.read.tryLockAsync(Duration.ZERO)).orElseThrow();
        CompletableFuture<Optional<LockHandle>> writer =
                doc.write.tryLockAsync(Duration.ofSeconds(30)).toCompletableFuture();
        first.unlock();
        assertThat(writer).isNotDone();
        second.unlockAsync();
        LockHandle write = get(writer).orElseThrow();
        assertThat(get(doc.read.tryLockAsync(Duration.ZERO)))
                .as("a writer excludes readers")
                .isEmpty();
        write.unlock();
        assertThat(locks.activeHolds()).isZero();
    }

    @Test
    void aWaitingWriterHoldsNewReadersBackAsInRedisMode() throws Exception {
        RedisReadWriteLockView doc = new RedisReadWriteLockView(locks, "doc");
        doc.read.lock();
        CompletableFuture<Boolean> writer =
                CompletableFuture.supplyAsync(() -> tryLockAndUnlock(doc.write, Duration.ofSeconds(30)), elsewhere);
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !CompletableFuture.supplyAsync(() -> tryLockAndUnlock(doc.read, Duration.ZERO))
                        .get());

        assertThat(get(doc.read.tryLockAsync(Duration.ZERO)))
                .as("a new read handle")
                .isEmpty();
        assertThat(doc.read.tryLock()).as("the reader inside re-enters").isTrue();
        doc.read.unlock();
        assertThat(writer).isNotDone();
        doc.read.unlock();
        assertThat(writer.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(CompletableFuture.supplyAsync(() -> tryLockAndUnlock(doc.read, Duration.ZERO))
                        .get())
                .as("readers once the writer is done")
                .isTrue();
    }

    @Test
    void aWriterThatGivesUpLetsTheReadersItHeldBackIn() throws Exception {
        RedisReadWriteLockView doc = new RedisReadWriteLockView(locks, "doc");
        doc.read.lock();
        CompletableFuture<Optional<LockHandle>> writer =
                doc.write.tryLockAsync(Duration.ofMillis(300)).toCompletableFuture();
        CompletableFuture<Boolean> reader =
                CompletableFuture.supplyAsync(() -> tryLockAndUnlock(doc.read, Duration.ofSeconds(30)), elsewhere);

        assertThat(get(writer)).as("the writer's wait ran out").isEmpty();
        assertThat(reader.get(5, TimeUnit.SECONDS)).isTrue();
        doc.read.unlock();
    }

    private static boolean tryLockAndUnlock(RedisLock lock, Duration wait) {
        try {
            boolean got = lock.tryLock(wait);
            if (got) {
                lock.unlock();
            }
            return got;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The two sides of a local read/write lock. */
    private record RedisReadWriteLockView(RedisLock read, RedisLock write) {
        RedisReadWriteLockView(LocalLocks locks, String key) {
            this(locks.lock(LockType.READ, false, key, key), locks.lock(LockType.WRITE, false, key, key));
        }
    }

    @Test
    void aMultiLockHandleTakesAllOrNothingAndKeepsEveryNamesToken() throws Exception {
        RedisLock b = locks.lock(LockType.REENTRANT, false, "b", "m");
        LockHandle holdsB = get(b.tryLockAsync(Duration.ZERO)).orElseThrow();
        RedisMultiLock multi = locks.multiLock(List.of("b", "a"), "m");

        assertThat(get(multi.tryLockAsync(Duration.ofMillis(50)))).isEmpty();
        assertThat(locks.lock(LockType.REENTRANT, false, "a", "m").isLocked())
                .as("a given back")
                .isFalse();

        CompletableFuture<LockHandle> both = multi.lockAsync().toCompletableFuture();
        holdsB.unlock();
        LockHandle handle = get(both);
        assertThat(handle.fencingTokens()).containsOnlyKeys("a", "b");
        assertThat(handle.fencingTokens().get("b")).isGreaterThan(holdsB.fencingToken());
        handle.unlock();
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
        assertThatThrownBy(() -> locks.lock(LockType.REENTRANT, false, "}order:1", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not start with '}'");
        assertThatThrownBy(() -> locks.lock(LockType.REENTRANT, false, "order\u202E1", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("invisible or bidi control character");
        assertThatThrownBy(() -> locks.multiLock(List.of("a", "b\uD800"), "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unpaired surrogate");
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
