package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.answered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.Exclusion;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RedLockNodes;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Handle-owned holds from the async methods: acquired without blocking a thread, released from any
 * thread exactly once, renewed and reported lost like a thread's hold, and given up completely when
 * the caller cancels while waiting.
 */
@BehaviourTest
class AsyncLockTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration GENEROUS = Duration.ofSeconds(10);

    /**
     * Renewed every lease/3; long enough that a renewal a loaded host sends a second late still lands in
     * time, since the tests assert handles held until they give them up.
     */
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(2);

    private LockClient client;
    private LockClient other;
    private RedisClient observerClient;
    private StatefulRedisConnection<String, String> observerConnection;
    private RedisCommands<String, String> observer;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().watchdogLease(WATCHDOG_LEASE).build());
        other = LockClient.create(RedisURI.create(redis.server().uri()));
        observerClient = RedisClient.create(RedisURI.create(redis.server().uri()));
        observerConnection = observerClient.connect();
        observer = observerConnection.sync();
        name = Names.fresh("async");
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
        observerConnection.close();
        ClientShutdown.shutdown(observerClient);
    }

    private String lockKey(String lockName) {
        return LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, lockName).lock();
    }

    private static <T> T get(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(GENEROUS.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * An async wait riding out a refusal (READONLY: the master turned replica for a while, as in a failover)
     * retries on the client's timer. Closing the client drops that timer's tasks; the wait must still end,
     * with an error that says why. Before, its future stayed pending for ever.
     */
    @Test
    void closingTheClientEndsAnAsyncWaitRidingOutARefusal() throws Exception {
        dev.distlock.testsupport.RedisServer server = redis.startAnother();
        dev.distlock.testsupport.RedisServer elsewhere = redis.startAnother();
        LockClient closing = LockClient.create(
                RedisURI.create(server.uri()),
                LockClientOptions.builder()
                        .operationTimeout(Duration.ofSeconds(20)) // retries would go on long after the close
                        .build());
        try (RedisProbe probe = RedisProbe.connect(server)) {
            server.command("REPLICAOF", "127.0.0.1", Integer.toString(elsewhere.port()));
            long before = probe.errorReplies("READONLY");
            CompletableFuture<?> wait =
                    closing.getLock(name).tryLockAsync(Duration.ofSeconds(60)).toCompletableFuture();
            await().atMost(GENEROUS).until(() -> probe.errorReplies("READONLY") - before >= 3);

            closing.close();

            assertThatThrownBy(() -> wait.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("closed");
        } finally {
            closing.close();
            server.command("REPLICAOF", "NO", "ONE");
        }
    }

    @Test
    void lockAsyncGivesAHandleThatAnotherThreadReleases() throws Exception {
        LockHandle handle = get(client.getLock(name).lockAsync());

        assertThat(handle.isHeld()).isTrue();
        assertThat(handle.key()).isEqualTo(name);
        assertThat(handle.fencingToken()).isPositive();
        assertThat(observer.exists(lockKey(name))).isOne();
        assertThat(client.getLock(name).isHeldByCurrentThread())
                .as("the handle owns it, not the thread")
                .isFalse();

        OtherThread.call(() -> {
            handle.unlock();
            return null;
        });

        assertThat(handle.isHeld()).isFalse();
        assertThat(observer.exists(lockKey(name))).isZero();
    }

    @Test
    void aHandleReleasesExactlyOnce() throws Exception {
        LockHandle handle = answered(() -> get(client.getLock(name).tryLockAsync(Duration.ZERO)))
                .orElseThrow();
        handle.unlock();

        assertThatThrownBy(handle::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already released");
        handle.close(); // nothing left to do
        assertThat(answered(() -> get(other.getLock(name).tryLockAsync(Duration.ZERO))))
                .as("free for others")
                .isPresent();
    }

    @Test
    void tryLockAsyncCompletesEmptyWhenTheWaitRunsOutAndHandlesDoNotReenter() throws Exception {
        LockHandle first = get(client.getLock(name).lockAsync());

        long start = System.nanoTime();
        Optional<LockHandle> second = get(client.getLock(name).tryLockAsync(Waits.RUNS_OUT));

        assertThat(second)
                .as("a second handle is another owner: it waits, and its wait runs out")
                .isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Waits.RUNS_OUT);
        first.unlock();
    }

    /**
     * Many acquisitions waiting at once cost no thread each: 200 of them are started from this
     * thread, all wait, and each runs in turn as the one before releases, with never two at once
     * (each stays inside across a round trip to Redis, chained, so no event-loop thread is blocked).
     */
    @Test
    void waitingAcquisitionsHoldNoThreadAndRunOneAtATime() throws Exception {
        RedisLock holder = other.getLock(name);
        holder.lock();
        int threadsBefore = Thread.activeCount();
        Exclusion exclusion = new Exclusion();
        AtomicInteger done = new AtomicInteger();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            all.add(client.getLock(name)
                    .tryLockAsync(Duration.ofSeconds(60))
                    .thenCompose(handle -> {
                        exclusion.enter();
                        return observerConnection.async().ping().thenCompose(pong -> {
                            exclusion.exit();
                            done.incrementAndGet();
                            return handle.orElseThrow().unlockAsync();
                        });
                    })
                    .toCompletableFuture());
        }
        assertThat(Thread.activeCount() - threadsBefore)
                .as("threads started for 200 waiters")
                .isLessThan(20);
        assertThat(done.get()).isZero();

        holder.unlock();
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertThat(done.get()).isEqualTo(200);
        assertThat(exclusion.overlaps()).isZero();
        assertThat(observer.exists(lockKey(name))).isZero();
        await().atMost(GENEROUS).until(() -> client.subscribedChannels() == 0);
    }

    @Test
    void cancellingAWaitingAcquisitionLeavesNothingInRedis() throws Exception {
        RedisLock holder = other.getFairLock(name);
        holder.lock();
        CompletableFuture<Optional<LockHandle>> waiting =
                client.getFairLock(name).tryLockAsync(Duration.ofSeconds(30)).toCompletableFuture();
        LockKeys keys = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name);
        await().atMost(GENEROUS).until(() -> observer.llen(keys.queue()) == 1);

        assertThat(waiting.cancel(true)).isTrue();

        await().atMost(GENEROUS).until(() -> observer.llen(keys.queue()) == 0);
        holder.unlock();
        await().atMost(GENEROUS).until(() -> observer.exists(keys.lock()) == 0);
        assertThat(client.activeHolds()).isZero();
        assertThat(get(other.getFairLock(name).tryLockAsync(Duration.ofSeconds(2))))
                .as("the next comer is not blocked")
                .isPresent();
    }

    @Test
    void cancellingLockAsyncWhileWaitingGivesUpAndTheLockStaysWithItsHolder() throws Exception {
        RedisLock holder = other.getLock(name);
        holder.lock();
        CompletableFuture<LockHandle> waiting = client.getLock(name).lockAsync().toCompletableFuture();
        await().atMost(GENEROUS).until(() -> client.subscribedChannels() == 1);

        waiting.cancel(true);

        await().atMost(GENEROUS).until(() -> client.subscribedChannels() == 0);
        holder.unlock();
        assertThat(observer.exists(lockKey(name))).isZero();
        assertThat(client.activeHolds()).isZero();
    }

    @Test
    void theWatchdogRenewsAHandleAndItsLossIsSignalled() throws Exception {
        LockHandle handle = get(client.getLock(name).lockAsync());
        Thread.sleep(WATCHDOG_LEASE.multipliedBy(2).toMillis()); // two leases: only renewals keep it
        assertThat(handle.isHeld()).isTrue();
        assertThat(observer.exists(lockKey(name))).isOne();

        assertThat(other.getLock(name).forceUnlock()).isTrue();

        String reason = handle.leaseLost().toCompletableFuture().get(GENEROUS.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(reason).contains("renewal");
        assertThat(handle.isHeld()).isFalse();
        assertThatThrownBy(handle::unlock).isInstanceOf(LockLeaseExpiredException.class);
    }

    @Test
    void aFixedLeaseRunningOutIsSignalledAtItsEnd() throws Exception {
        LockHandle handle = answered(
                        () -> get(client.getLock(name).tryLockAsync(Duration.ZERO, Duration.ofMillis(300))))
                .orElseThrow();

        String reason = handle.leaseLost().toCompletableFuture().get(GENEROUS.toMillis(), TimeUnit.MILLISECONDS);

        assertThat(reason).contains("explicit lease of 300 ms");
        // Signalled at the lease's end counted from the request; Redis counts from running the script.
        await().atMost(Waits.GRANTED).until(() -> observer.exists(lockKey(name)) == 0);
    }

    @Test
    void readHandlesShareAndAWriteHandleWaitsForThem() throws Exception {
        RedisReadWriteLock rw = client.getReadWriteLock(name);
        LockHandle read1 = get(rw.readLock().lockAsync());
        LockHandle read2 =
                answered(() -> get(rw.readLock().tryLockAsync(Duration.ZERO))).orElseThrow();
        CompletableFuture<Optional<LockHandle>> write =
                rw.writeLock().tryLockAsync(Duration.ofSeconds(20)).toCompletableFuture();
        // it waits for the readers (listening for their release): only then does "not done" say anything
        await().atMost(GENEROUS).until(() -> client.subscribedChannels() == 1);
        assertThat(write).isNotDone();

        read1.unlock();
        read2.unlockAsync().toCompletableFuture().get(5, TimeUnit.SECONDS);

        LockHandle writer =
                write.get(GENEROUS.toMillis(), TimeUnit.MILLISECONDS).orElseThrow();
        assertThat(writer.fencingToken()).isGreaterThan(read1.fencingToken());
        writer.unlock();
    }

    @Test
    void multiLockHandleTakesAllOrNothing() throws Exception {
        String a = name + "-a";
        String b = name + "-b";
        LockHandle both = answered(() -> get(client.getMultiLock(a, b).tryLockAsync(Duration.ZERO)))
                .orElseThrow();
        assertThat(observer.exists(lockKey(a), lockKey(b))).isEqualTo(2);
        both.unlock();
        assertThat(observer.exists(lockKey(a), lockKey(b))).isZero();

        RedisLock holderOfB = other.getLock(b);
        holderOfB.lock();
        assertThat(get(client.getMultiLock(a, b).tryLockAsync(Waits.RUNS_OUT))).isEmpty();
        await("a is given back when b cannot be had (in the background)")
                .atMost(Waits.GRANTED)
                .until(() -> observer.exists(lockKey(a)) == 0);
        holderOfB.unlock();
    }

    @Test
    void redLockHandle() throws Exception {
        try (RedLockNodes nodes = new RedLockNodes(redis)) {
            RedLockClient redLock = nodes.connect(3);
            LockHandle handle = get(redLock.getLock(name).lockAsync());
            assertThat(handle.fencingToken()).isPositive();
            assertThat(get(redLock.getLock(name).tryLockAsync(Waits.RUNS_OUT))).isEmpty();
            for (int i = 0; i < 3; i++) {
                assertThat(nodes.hasKey(i, name)).isTrue();
            }
            OtherThread.call(() -> {
                handle.unlock();
                return null;
            });
            // A round of the waiter that gave up may still land on a node just freed; such a minority grant is
            // given back in the background.
            for (int i = 0; i < 3; i++) {
                int node = i;
                await().atMost(Waits.GRANTED).until(() -> !nodes.hasKey(node, name));
            }
        }
    }

    /**
     * The narrow race of a cancel arriving just as Redis grants: made certain by a listener that cancels
     * the caller's future while the grant is being recorded. The grant is given back, and listeners see it
     * released once, as they see every grant they were told of.
     */
    @Test
    void aGrantCancelledAsItArrivesIsGivenBackAndReportedReleased() throws Exception {
        CancelOnGrant cancelling = new CancelOnGrant();
        LockClient cancelled = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().listener(cancelling).build());
        RedisLock holder = other.getLock(name);
        holder.lock(); // the grant comes after a wake-up, on a client thread: never on this one, which must arm
        try {
            CompletableFuture<Optional<LockHandle>> waiting =
                    cancelled.getLock(name).tryLockAsync(GENEROUS).toCompletableFuture();
            cancelling.pending = waiting;
            cancelling.armed.countDown();
            holder.unlock();

            cancelling.assertGrantCancelledAndReleased(waiting);
            await().atMost(GENEROUS).until(() -> observer.exists(lockKey(name)) == 0);
            assertThat(cancelled.activeHolds()).isZero();
            assertThat(get(other.getLock(name).tryLockAsync(Duration.ofSeconds(2))))
                    .isPresent();
        } finally {
            cancelled.close();
        }
    }

    @Test
    void aRedLockGrantCancelledAsItArrivesIsGivenBackAndReportedReleased() throws Exception {
        try (RedLockNodes nodes = new RedLockNodes(redis)) {
            CancelOnGrant cancelling = new CancelOnGrant();
            RedLockClient redLock = nodes.connect(
                    3, LockClientOptions.builder().listener(cancelling).build());
            RedisLock holder = nodes.connect(3).getLock(name);
            holder.lock(); // the grant comes after a wake-up, on a client thread: never on this one, which must arm
            CompletableFuture<Optional<LockHandle>> waiting =
                    redLock.getLock(name).tryLockAsync(GENEROUS).toCompletableFuture();
            cancelling.pending = waiting;
            cancelling.armed.countDown();
            holder.unlock();

            cancelling.assertGrantCancelledAndReleased(waiting);
            for (int i = 0; i < 3; i++) {
                int node = i;
                await().atMost(GENEROUS).until(() -> !nodes.hasKey(node, name));
            }
        }
    }

    /** Cancels {@link #pending} from inside the acquire event of its grant; counts acquire and release events. */
    private static final class CancelOnGrant implements LockListener {
        final CountDownLatch armed = new CountDownLatch(1);
        volatile CompletableFuture<?> pending;
        final AtomicInteger acquired = new AtomicInteger();
        final AtomicInteger released = new AtomicInteger();
        volatile boolean cancelledIt;

        @Override
        public void onAcquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {
            if (outcome != AcquireOutcome.ACQUIRED) {
                return;
            }
            acquired.incrementAndGet();
            try {
                armed.await(10, TimeUnit.SECONDS); // the test publishes the future before the grant may be cancelled
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            cancelledIt = pending.cancel(true);
        }

        @Override
        public void onRelease(LockInfo lock, Duration held) {
            released.incrementAndGet();
        }

        void assertGrantCancelledAndReleased(CompletableFuture<?> waiting) {
            await().atMost(GENEROUS).until(() -> acquired.get() == 1);
            assertThat(cancelledIt)
                    .as("cancelled before the caller got the hold")
                    .isTrue();
            assertThat(waiting).isCancelled();
            await("the given-back grant is reported released").atMost(GENEROUS).until(() -> released.get() == 1);
        }
    }

    @Test
    void closingTheClientFailsWaitingAcquisitionsAndLaterOnes() throws Exception {
        RedisLock holder = other.getLock(name);
        holder.lock();
        CompletableFuture<Optional<LockHandle>> waiting =
                client.getLock(name).tryLockAsync(Duration.ofSeconds(30)).toCompletableFuture();
        await().atMost(GENEROUS).until(() -> client.subscribedChannels() == 1);

        client.close();

        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockException.class);
        assertThatThrownBy(() ->
                        client.getLock(name).lockAsync().toCompletableFuture().join())
                .isInstanceOf(CompletionException.class)
                .hasMessageContaining("closed");
        holder.unlock();
    }

    @Test
    void badDurationsAreRefusedBeforeRedisIsTouched() {
        RedisLock lock = client.getLock(name);
        assertThatThrownBy(() -> lock.tryLockAsync(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> lock.tryLockAsync(Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
