package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.distlock.core.testing.Exclusion;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.ThreadDump;
import dev.distlock.testsupport.VirtualThreads;
import io.lettuce.core.RedisURI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thread-bound locks from virtual threads: 10,000 of them on one lock and on 1,000 locks, with
 * mutual exclusion checked and JFR recording {@code jdk.VirtualThreadPinned}: no pinning may show a
 * frame of ours. Runs on Java 21+ only, in its own surefire execution that {@code .ci/run} points at
 * a 21+ JDK (see lock-core's pom); on the default Java 17 the execution is not bound, so this test is
 * never reported as skipped-but-passing. The sources stay Java 17: virtual threads are reached by
 * reflection.
 */
@SlowTest
class VirtualThreadsTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private LockClient client;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() {
        assertThat(Runtime.version().feature())
                .as("this test needs a Java 21+ JVM (see lock-core's pom)")
                .isGreaterThanOrEqualTo(21);
        client = LockClient.create(RedisURI.create(redis.server().uri()));
    }

    @AfterEach
    void tearDown() {
        client.close();
    }

    @Test
    void tenThousandVirtualThreadsOnOneLockTakeTurnsWithoutPinning() throws Exception {
        String name = Names.fresh("vt-one");
        List<String> pinnedInOurCode = recordPinning(() -> churn(10_000, i -> name));
        assertThat(pinnedInOurCode).as("pinned virtual threads with our frames").isEmpty();
    }

    @Test
    void tenThousandVirtualThreadsOnAThousandLocksTakeTurnsWithoutPinning() throws Exception {
        String prefix = Names.fresh("vt-many");
        List<String> pinnedInOurCode = recordPinning(() -> churn(10_000, i -> prefix + "-" + (i % 1_000)));
        assertThat(pinnedInOurCode).as("pinned virtual threads with our frames").isEmpty();
    }

    /**
     * Virtual threads waiting for every kind of lock (reentrant by {@code lock()} and {@code tryLock}, fair,
     * read, write, multi), of the holder's client and of another one, park owning no monitor and blocked on
     * none: on Java 21-23 either would pin the carrier, and JFR would show it there, but not on Java 24+
     * (where CI runs), whose thread dumps list the monitors each thread owns instead. A control thread parked inside a
     * {@code synchronized} block shows that this JVM's dump does list them.
     */
    @Test
    void virtualThreadsWaitingForEveryKindOfLockOwnNoMonitor() throws Exception {
        assumeTrue(
                Runtime.version().feature() >= 24,
                "thread dumps list owned monitors from Java 24 on; on 21-23 the JFR tests above catch such pinning");
        Object monitor = new Object();
        CountDownLatch controlInside = new CountDownLatch(1);
        CountDownLatch endControl = new CountDownLatch(1);
        ExecutorService virtual = VirtualThreads.perTaskExecutor();
        LockClient other = LockClient.create(RedisURI.create(redis.server().uri()));
        String prefix = Names.fresh("vt-waits");
        List<RedisLock> held = List.of(
                client.getLock(prefix + "-reentrant"),
                client.getFairLock(prefix + "-fair"),
                client.getReadWriteLock(prefix + "-rw").writeLock(),
                client.getMultiLock(prefix + "-m1", prefix + "-m2"));
        List<java.util.function.Function<LockClient, RedisLock>> waitedFor = List.of(
                c -> c.getLock(prefix + "-reentrant"),
                c -> c.getFairLock(prefix + "-fair"),
                c -> c.getReadWriteLock(prefix + "-rw").readLock(),
                c -> c.getReadWriteLock(prefix + "-rw").writeLock(),
                c -> c.getMultiLock(prefix + "-m2", prefix + "-m1"));
        List<Future<Boolean>> waiters = new ArrayList<>();
        try {
            try {
                virtual.submit(() -> {
                    Thread.currentThread().setName("monitor-control");
                    synchronized (monitor) {
                        controlInside.countDown();
                        endControl.await();
                    }
                    return null;
                });
                controlInside.await(10, TimeUnit.SECONDS);
                for (RedisLock lock : held) {
                    lock.lock();
                }
                for (LockClient waiting : List.of(client, other)) {
                    for (java.util.function.Function<LockClient, RedisLock> kind : waitedFor) {
                        for (int i = 0; i < 4; i++) {
                            boolean bounded = i % 2 == 0;
                            waiters.add(virtual.submit(() -> {
                                RedisLock lock = kind.apply(waiting);
                                if (bounded) {
                                    if (!lock.tryLock(Duration.ofSeconds(60))) {
                                        return false;
                                    }
                                } else {
                                    lock.lock();
                                }
                                lock.unlock();
                                return true;
                            }));
                        }
                    }
                }
                int expected = waiters.size();
                AtomicInteger dumps = new AtomicInteger();
                List<ThreadDump.DumpedThread> waiting = new ArrayList<>();
                ThreadDump.DumpedThread[] control = new ThreadDump.DumpedThread[1];
                await("every waiter parked in a lock call")
                        .atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> {
                            List<ThreadDump.DumpedThread> all =
                                    ThreadDump.take(dir.resolve("threads-" + dumps.incrementAndGet() + ".json"));
                            waiting.clear();
                            for (ThreadDump.DumpedThread thread : all) {
                                if (!thread.virtual()) {
                                    continue;
                                }
                                if (thread.name().equals("monitor-control")) {
                                    control[0] = thread;
                                } else if (thread.runs("dev.distlock.")) {
                                    waiting.add(thread);
                                }
                            }
                            return waiting.stream()
                                            .filter(t ->
                                                    t.runs("lambda$virtualThreadsWaitingForEveryKindOfLockOwnNoMonitor")
                                                            && !t.state().equals("RUNNABLE"))
                                            .count()
                                    == expected;
                        });
                assertThat(control[0]).as("the control thread in the dump").isNotNull();
                assertThat(control[0].ownsMonitors())
                        .as("this JDK's thread dump lists the monitor the control thread owns")
                        .isTrue();
                assertThat(waiting)
                        .as("virtual threads in our code parked while owning a monitor")
                        .filteredOn(ThreadDump.DumpedThread::ownsMonitors)
                        .isEmpty();
                assertThat(waiting)
                        .as("virtual threads in our code blocked entering a monitor")
                        .filteredOn(t -> t.state().equals("BLOCKED"))
                        .isEmpty();
            } finally {
                endControl.countDown();
                for (RedisLock lock : held) {
                    if (lock.isHeldByCurrentThread()) {
                        lock.unlock();
                    }
                }
            }
            for (Future<Boolean> waiter : waiters) {
                assertThat(waiter.get(120, TimeUnit.SECONDS))
                        .as("a waiter got its lock")
                        .isTrue();
            }
        } finally {
            virtual.shutdownNow(); // only left running when a check failed
            virtual.awaitTermination(60, TimeUnit.SECONDS);
            other.close();
        }
    }

    /** Each of {@code threads} virtual threads locks its name, checks it is alone inside, and unlocks. */
    private void churn(int threads, java.util.function.IntFunction<String> nameOf) throws Exception {
        ConcurrentHashMap<String, Exclusion> exclusions = new ConcurrentHashMap<>();
        AtomicInteger done = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        ExecutorService virtual = VirtualThreads.perTaskExecutor();
        try {
            for (int i = 0; i < threads; i++) {
                String name = nameOf.apply(i);
                futures.add(virtual.submit(() -> {
                    RedisLock lock = client.getLock(name);
                    if (!lock.tryLock(Duration.ofSeconds(120))) {
                        throw new IllegalStateException("not granted: " + name);
                    }
                    try {
                        exclusions.computeIfAbsent(name, n -> new Exclusion()).pass();
                    } finally {
                        lock.unlock();
                    }
                    done.incrementAndGet();
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(180, TimeUnit.SECONDS);
            }
        } finally {
            virtual.shutdown();
            virtual.awaitTermination(60, TimeUnit.SECONDS);
        }
        assertThat(done.get()).isEqualTo(threads);
        assertThat(exclusions.values().stream().mapToInt(Exclusion::overlaps).sum())
                .as("two holders inside at once")
                .isZero();
        assertThat(client.activeHolds()).isZero();
    }

    /** Runs {@code work} under a JFR recording of pinning, after a warm-up (see {@link VirtualThreads#pinnedInOurFrames}). */
    private List<String> recordPinning(VirtualThreads.Work work) throws Exception {
        churn(200, i -> "vt-warm-up-" + (i % 3));
        return VirtualThreads.pinnedInOurFrames(dir.resolve("pinning.jfr"), work);
    }
}
