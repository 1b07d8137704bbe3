package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.VirtualThreads;
import io.lettuce.core.RedisURI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
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
