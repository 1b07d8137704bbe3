package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.memory.MemoryPort;
import dev.distlock.core.internal.memory.MemoryRedis;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.Waits;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Local clients ({@link LockClient#local}): the engine on an in-process store that runs the lock scripts.
 * Two clients on one store stand for two instances on one Redis; the store is looked into directly where a
 * test needs to see a fair lock's queue.
 */
@BehaviourTest
class LocalLockClientTest {

    private final MemoryRedis store = new MemoryRedis();
    private final LockClient client = LockClient.local(MemoryPort.of(store), LockClientOptions.defaults());
    private final LockClient other = LockClient.local(MemoryPort.of(store), LockClientOptions.defaults());

    @AfterEach
    void close() {
        client.close();
        other.close();
        store.close();
    }

    /** How many waiters the fair lock {@code name} has queued in the store. */
    private int queued(String name) {
        String queue = LockKeys.of(client.options().keyPrefix(), name).queue();
        Map<String, MemoryRedis.Entry> entries = store.dump(queue);
        return entries.isEmpty() ? 0 : ((Collection<?>) entries.get(queue).value()).size();
    }

    @Test
    void twoClientsOnOneStoreExcludeEachOtherWithGrowingTokens() throws Exception {
        RedisLock mine = client.getLock("order:1");
        RedisLock theirs = other.getLock("order:1");
        assertThat(mine.tryLock(Waits.GRANTED)).isTrue();
        long first = mine.currentFencingToken();
        assertThat(theirs.tryLock(Waits.RUNS_OUT)).isFalse();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return theirs.tryLock(Waits.GRANTED);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        mine.unlock();
        assertThat(waiting.get(Waits.GRANTED.toSeconds() + 5, TimeUnit.SECONDS)).isTrue();
        assertThat(other.heldLocks())
                .singleElement()
                .satisfies(h -> assertThat(h.fencingToken()).isGreaterThan(first));
    }

    @Test
    void aClientOfItsOwnStoreSharesNothingWithAnother() throws Exception {
        try (LockClient a = LockClient.local(LockClientOptions.defaults());
                LockClient b = LockClient.local(LockClientOptions.defaults())) {
            assertThat(a.getLock("job").tryLock(Waits.GRANTED)).isTrue();
            assertThat(b.getLock("job").tryLock(Waits.GRANTED)).isTrue(); // NOT distributed
        }
    }

    @Test
    void aLocalRedLockTakesAMajorityOfLocalStores() throws Exception {
        List<LockClient> nodes = List.of(
                LockClient.local(LockClientOptions.defaults()),
                LockClient.local(LockClientOptions.defaults()),
                LockClient.local(LockClientOptions.defaults()));
        try (RedLockClient redLock = RedLockClient.of(nodes, LockClientOptions.defaults())) {
            RedisLock lock = redLock.getLock("nightly");
            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
            assertThat(nodes.get(0).getLock("nightly").isLocked()).isTrue();
            lock.unlock();
            assertThat(lock.isLocked()).isFalse();
        } finally {
            nodes.forEach(LockClient::close);
        }
    }

    @Test
    void fairLockGrantsInArrivalOrder() throws Exception {
        RedisLock holder = client.getFairLock("queue", "q");
        holder.lock();
        List<String> order = new CopyOnWriteArrayList<>();
        // threads of their own: both block at once, which the common pool need not allow (it has one thread on
        // two cores, and on Java 25 CompletableFuture's default executor then runs the second after the first)
        ExecutorService waiters = Executors.newFixedThreadPool(2);
        try {
            CompletableFuture<Void> first = CompletableFuture.runAsync(() -> takeAndRecord("first", order), waiters);
            await().atMost(Waits.GRANTED).until(() -> queued("queue") == 1);
            CompletableFuture<Void> second = CompletableFuture.runAsync(() -> takeAndRecord("second", order), waiters);
            await().atMost(Waits.GRANTED).until(() -> queued("queue") == 2);
            holder.unlock();
            CompletableFuture.allOf(first, second).get(2 * Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
        } finally {
            waiters.shutdownNow();
        }
        assertThat(order).containsExactly("first", "second");
    }

    private void takeAndRecord(String who, List<String> order) {
        RedisLock lock = client.getFairLock("queue", "q");
        try {
            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        order.add(who);
        lock.unlock();
    }

    @Test
    void cancellingAWaitingHandleLeavesTheFairQueueAndTheLockGoesToTheNext() throws Exception {
        RedisLock holder = client.getFairLock("fq", "q");
        holder.lock();
        CompletableFuture<Optional<LockHandle>> waiting =
                client.getFairLock("fq", "q").tryLockAsync(Waits.GRANTED).toCompletableFuture();
        CompletableFuture<LockHandle> forever =
                client.getFairLock("fq", "q").lockAsync().toCompletableFuture();
        CompletableFuture<Optional<LockHandle>> last =
                client.getFairLock("fq", "q").tryLockAsync(Waits.GRANTED).toCompletableFuture();
        await().atMost(Waits.GRANTED).until(() -> queued("fq") == 3);

        assertThat(waiting.cancel(true)).isTrue();
        assertThat(forever.cancel(true)).isTrue();
        await().atMost(Waits.GRANTED)
                .untilAsserted(() -> assertThat(queued("fq"))
                        .as("the cancelled left the queue")
                        .isEqualTo(1));
        holder.unlock();

        LockHandle next =
                last.get(Waits.GRANTED.toSeconds() + 5, TimeUnit.SECONDS).orElseThrow();
        assertThat(next.isHeld()).isTrue();
        next.unlock();
        assertThat(client.getFairLock("fq", "q").isLocked()).isFalse();
        assertThat(queued("fq")).isZero();
    }

    @Test
    void aClosedLocalClientRefusesWithAClearError() {
        LockClient closed = LockClient.local(MemoryPort.of(store), LockClientOptions.defaults());
        closed.close();
        assertThatThrownBy(() -> closed.getLock("x").tryLock(Duration.ZERO))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed");
    }
}
