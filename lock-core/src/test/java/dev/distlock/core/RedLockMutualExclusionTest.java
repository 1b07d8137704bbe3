package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RedLockNodes;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Threads of two RedLockClients increment a plain counter under one RedLock while the Redis nodes
 * are killed and restarted (empty) one at a time: no increment may be lost, no two holders overlap.
 */
@SlowTest
class RedLockMutualExclusionTest {

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

    @ParameterizedTest(name = "{0} nodes")
    @ValueSource(ints = {3, 5})
    void mutualExclusionHoldsWhileNodesStopAndRestartOneAtATime(int n) throws Exception {
        String name = Names.fresh("counter");
        List<LockClient> probes = nodes.nodeClients(n, true);
        List<RedisLock> locks = List.of(
                nodes.closeLater(RedLockClient.of(nodes.nodeClients(n, true), LockClientOptions.defaults()))
                        .getLock(name),
                nodes.closeLater(RedLockClient.of(nodes.nodeClients(n, true), LockClientOptions.defaults()))
                        .getLock(name));
        Counter counter = new Counter();
        AtomicBoolean stop = new AtomicBoolean();
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            RedisLock lock = locks.get(t % 2);
            Thread worker = new Thread(
                    () -> {
                        while (!stop.get()) {
                            try {
                                if (lock.tryLock(Duration.ofSeconds(5))) {
                                    try {
                                        counter.incrementSlowly();
                                    } finally {
                                        lock.unlock();
                                    }
                                }
                            } catch (Throwable e) {
                                errors.add(e);
                            }
                        }
                    },
                    "redlock-worker-" + t);
            worker.start();
            workers.add(worker);
        }

        for (int i = 0; i < n; i++) {
            int node = i;
            awaitProgress(counter);
            nodes.server(node).stop();
            awaitProgress(counter); // a majority is still up: the lock keeps working
            nodes.server(node).restart();
            // Before the next node goes down, this one must be reachable again and every hold taken
            // while it was down must be over: a RedLock node that loses its keys may rejoin only when
            // no hold it granted is still running (the "delayed restart" rule).
            await().atMost(Duration.ofSeconds(20))
                    .ignoreExceptions()
                    .until(() -> !probes.get(node).getLock("probe").isLocked());
            awaitProgress(counter);
        }
        stop.set(true);
        for (Thread worker : workers) {
            worker.join(10_000);
        }

        assertThat(errors).isEmpty();
        assertThat(counter.overlaps.get()).as("holders that overlapped").isZero();
        assertThat(counter.value).as("increments lost to overlapping holders").isEqualTo(counter.increments.get());
        assertThat(counter.increments.get()).isGreaterThan(n * 60);
    }

    private static void awaitProgress(Counter counter) {
        int from = counter.increments.get();
        await().atMost(Duration.ofSeconds(20)).until(() -> counter.increments.get() >= from + 20);
    }

    /** A deliberately unsafe counter: read, yield, write; any overlap of two holders loses an update. */
    private static final class Counter {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger increments = new AtomicInteger();
        volatile int value;

        void incrementSlowly() {
            if (inside.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            int read = value;
            Thread.yield();
            value = read + 1;
            increments.incrementAndGet();
            inside.decrementAndGet();
        }
    }
}
