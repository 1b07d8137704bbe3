package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.testing.HoldHistory;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 10,000 async acquisitions wait for one lock at once: each gets it in turn, holds it across a Redis round
 * trip, and releases; never two inside at once, tokens growing in hold order, and no thread per waiter (the
 * JVM's live thread count stays within a small bound of what it was before they started).
 */
@SlowTest
class AsyncWaitersAtScaleTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final int WAITERS = 10_000;
    private static final int THREAD_BOUND = 50;

    @Test
    void tenThousandAsyncWaitersOnOneNameHoldItOneAtATimeWithoutAThreadEach() throws Exception {
        String name = Names.fresh("async-10k");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        RedisClient plain = RedisClient.create(redis.server().uri());
        // Each step of a wait is bounded by the operation timeout; 10,000 first tries queue at Redis at once, so a
        // shared, loaded machine gets time for them (the test is about scale, not about time-outs).
        try (LockClient client = LockClient.create(
                        RedisURI.create(redis.server().uri()),
                        LockClientOptions.builder()
                                .operationTimeout(Duration.ofSeconds(60))
                                .build());
                LockClient other =
                        LockClient.create(RedisURI.create(redis.server().uri()));
                StatefulRedisConnection<String, String> clock = plain.connect()) {
            // Every thread the client starts for a contended wait exists before the count is taken.
            RedisLock holder = other.getLock(name);
            holder.lock();
            CompletableFuture<Void> warmUp = client.getLock(name)
                    .lockAsync()
                    .thenCompose(LockHandle::unlockAsync)
                    .toCompletableFuture();
            await().atMost(Duration.ofSeconds(10)).until(() -> client.subscribedChannels() == 1);
            holder.unlock();
            warmUp.get(10, TimeUnit.SECONDS);
            clock.sync().ping();

            holder.lock();
            int before = threads.getThreadCount();
            AtomicInteger peak = new AtomicInteger(before);
            sampler.scheduleAtFixedRate(
                    () -> peak.accumulateAndGet(threads.getThreadCount(), Math::max), 0, 10, TimeUnit.MILLISECONDS);
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger overlaps = new AtomicInteger();
            List<Long> tokens = new ArrayList<>();
            List<CompletableFuture<Void>> all = new ArrayList<>();
            RedisLock lock = client.getLock(name);
            for (int i = 0; i < WAITERS; i++) {
                all.add(lock.tryLockAsync(Duration.ofMinutes(5))
                        .thenCompose(handle -> {
                            LockHandle held = handle.orElseThrow();
                            if (inside.incrementAndGet() > 1) {
                                overlaps.incrementAndGet();
                            }
                            synchronized (tokens) {
                                tokens.add(held.fencingToken());
                            }
                            // hold the lock across a round trip, on no thread, before leaving
                            return clock.async().ping().thenCompose(pong -> {
                                inside.decrementAndGet();
                                return held.unlockAsync();
                            });
                        })
                        .toCompletableFuture());
            }
            assertThat(tokens)
                    .as("nobody got the lock while it was held elsewhere")
                    .isEmpty();
            holder.unlock();

            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
            sampler.shutdown();

            assertThat(tokens).hasSize(WAITERS);
            assertThat(overlaps.get()).as("two holders inside at once").isZero();
            for (int i = 1; i < tokens.size(); i++) {
                assertThat(tokens.get(i)).as("token of hold %d", i).isGreaterThan(tokens.get(i - 1));
            }
            assertThat(peak.get() - before)
                    .as("threads started while %d acquisitions waited (before: %d)", WAITERS, before)
                    .isLessThan(THREAD_BOUND);
            assertThat(client.activeHolds()).isZero();
            await().atMost(Duration.ofSeconds(10)).until(() -> client.subscribedChannels() == 0);
            assertThat(HoldHistory.leftKeys(redis.server()))
                    .as("keys left in Redis besides fencing counters")
                    .isEmpty();
        } finally {
            sampler.shutdownNow();
            ClientShutdown.shutdown(plain);
        }
    }
}
