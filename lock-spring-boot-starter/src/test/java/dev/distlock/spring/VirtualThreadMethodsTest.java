package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.VirtualThreads;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.AsyncTaskExecutor;

/**
 * {@code @DistributedLock} methods called from virtual threads, in an application with
 * {@code spring.threads.virtual.enabled=true}: 10,000 calls on one key and 10,000 on 1,000 keys, submitted to
 * Spring Boot's own {@code applicationTaskExecutor} (a virtual thread per task when enabled), never two inside
 * one key at once, tokens growing per key, and JFR's {@code jdk.VirtualThreadPinned} showing no pinning with
 * one of our frames. Needs Java 21+: run by the virtual-threads profile of the parent POM on the JDK that
 * {@code DISTLOCK_JAVA21} names, never on the build's Java 17 (where it would not be skipped but absent).
 */
@SlowTest
class VirtualThreadMethodsTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @TempDir
    Path dir;

    @Test
    void tenThousandVirtualThreadsCallLockedMethodsOneAtATimePerKeyWithoutPinning() {
        assertThat(Runtime.version().feature())
                .as("this test needs a Java 21+ JVM (see the parent POM's virtual-threads profile)")
                .isGreaterThanOrEqualTo(21);
        Tally tally = new Tally();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS, TaskExecutionAutoConfiguration.class, DistributedLockAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "spring.threads.virtual.enabled=true",
                        "distlock.wait-time=5m")
                .withBean(Keys.class, () -> new Keys(tally))
                .run(context -> {
                    AsyncTaskExecutor executor = context.getBean("applicationTaskExecutor", AsyncTaskExecutor.class);
                    Keys keys = context.getBean(Keys.class);
                    calls(executor, keys, 200, i -> "warm-up-" + (i % 3));

                    List<String> pinned = VirtualThreads.pinnedInOurFrames(dir.resolve("pinning.jfr"), () -> {
                        calls(executor, keys, 10_000, i -> "one");
                        calls(executor, keys, 10_000, i -> "many-" + (i % 1_000));
                    });

                    assertThat(pinned)
                            .as("pinned virtual threads with our frames")
                            .isEmpty();
                    assertThat(tally.calls.get()).isEqualTo(20_200);
                    assertThat(tally.onVirtualThreads.get())
                            .as("calls that ran on a virtual thread")
                            .isEqualTo(20_200);
                    assertThat(tally.overlaps.get())
                            .as("two callers inside one key at once")
                            .isZero();
                    assertThat(tally.tokensNotGrowing.get())
                            .as("fencing tokens not larger than the key's last")
                            .isZero();
                });
    }

    private static void calls(AsyncTaskExecutor executor, Keys keys, int count, IntFunction<String> keyOf)
            throws Exception {
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = keyOf.apply(i);
            futures.add(executor.submit(() -> keys.enter(key)));
        }
        for (Future<?> future : futures) {
            future.get(5, TimeUnit.MINUTES);
        }
    }

    /** What the calls saw (outside the proxied bean, whose own fields a CGLIB proxy does not share). */
    static final class Tally {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger onVirtualThreads = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger tokensNotGrowing = new AtomicInteger();
        final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        final Map<String, Long> lastToken = new ConcurrentHashMap<>();
    }

    /**
     * The locked method: counts who is inside each key, staying there a while, and checks its token against
     * the key's last one.
     */
    public static class Keys {
        /** About a lock round trip: long enough for an overlap of two holders to show. */
        private static final long INSIDE_NANOS = TimeUnit.MICROSECONDS.toNanos(150);

        private final Tally tally;

        public Keys(Tally tally) {
            this.tally = tally;
        }

        @DistributedLock(key = "'vt:' + #key")
        public void enter(String key) {
            AtomicInteger here = tally.inside.computeIfAbsent(key, k -> new AtomicInteger());
            if (here.incrementAndGet() > 1) {
                tally.overlaps.incrementAndGet();
            }
            long token = LockContext.currentToken();
            Long last = tally.lastToken.put(key, token);
            if (last != null && last >= token) {
                tally.tokensNotGrowing.incrementAndGet();
            }
            if (VirtualThreads.isVirtual(Thread.currentThread())) {
                tally.onVirtualThreads.incrementAndGet();
            }
            tally.calls.incrementAndGet();
            // Stays inside a while (parked, which a virtual thread may): left empty, two callers inside at
            // once would almost never be seen there together, and the overlap check could not fail.
            LockSupport.parkNanos(INSIDE_NANOS);
            here.decrementAndGet();
        }
    }
}
