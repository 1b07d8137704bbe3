package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.HolderWorker;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Faults injected on purpose: a holder killed, Redis paused, Redis restarted under load. */
@SlowTest
class FaultToleranceTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @TempDir
    Path dir;

    @Test
    void aHolderKilledWithSigkillFreesItsLockWithinOneLeasePlusTwoSeconds() throws Exception {
        String name = Names.fresh("killed");
        long leaseMs = 2000;
        Path output = dir.resolve("holder.out");
        Process holder = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx128m",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                        HolderWorker.class.getName(),
                        redis.server().uri(),
                        name,
                        Long.toString(leaseMs))
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try (LockClient client =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> Files.readString(output).contains("HELD"));
            RedisLock lock = client.getLock(name);
            // renewed while the holder lives: still held after more than a lease
            Thread.sleep(leaseMs + 500);
            assertThat(tryOnce(lock)).isFalse();
            holder.destroyForcibly(); // SIGKILL: no unlock, no shutdown hook
            assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
            long killed = System.nanoTime();
            assertThat(lock.tryLock(Duration.ofMillis(leaseMs + 2000))).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - killed))
                    .isLessThanOrEqualTo(Duration.ofMillis(leaseMs + 2000));
            lock.unlock();
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void redisPausedLongerThanTheLeaseMakesTheHolderReportTheLossAndNoOneOverlaps() throws Exception {
        RedisServer server = redis.startAnother();
        RecordingListener events = new RecordingListener();
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(Duration.ofMillis(600))
                .listener(events)
                .build();
        String name = Names.fresh("paused");
        try (LockClient holderClient = LockClient.create(RedisURI.create(server.uri()), options);
                LockClient other = LockClient.create(RedisURI.create(server.uri()))) {
            RedisLock lock = holderClient.getLock(name);
            lock.lock();
            server.pause(); // the 600 ms lease must run out: nothing asserts it held meanwhile
            try {
                await().atMost(Waits.GRANTED)
                        .until(() -> !events.leaseLosses(name).isEmpty());
                assertThat(lock.isHeldByCurrentThread()).isFalse();
                assertThat(events.leaseLosses(name)).hasSize(1);
                assertThat(events.leaseLosses(name).get(0).reason()).contains("no renewal was confirmed");
            } finally {
                server.resume();
            }
            // after the pause the key has expired: another owner may take it, and the old holder knows it lost it
            RedisLock otherLock = other.getLock(name);
            assertThat(otherLock.tryLock(Waits.GRANTED)).isTrue();
            assertThatThrownBy(lock::unlock).isInstanceOf(LockLeaseExpiredException.class);
            assertThat(otherLock.isHeldByCurrentThread())
                    .as("the stale unlock did not release the new holder")
                    .isTrue();
            otherLock.unlock();
        }
    }

    @Test
    void aPauseShorterThanTheLeaseKeepsTheHold() throws Exception {
        RedisServer server = redis.startAnother();
        RecordingListener events = new RecordingListener();
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(Duration.ofMillis(3000))
                .listener(events)
                .build();
        String name = Names.fresh("blip");
        try (LockClient client = LockClient.create(RedisURI.create(server.uri()), options)) {
            RedisLock lock = client.getLock(name);
            lock.lock();
            server.pause();
            Thread.sleep(1200); // more than one renewal period (1 s), well under the lease
            server.resume();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> !events.renewals(name, LockListener.RenewalOutcome.RENEWED)
                            .isEmpty());
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(events.leaseLosses(name)).isEmpty();
            lock.unlock();
        }
    }

    @Test
    void interruptOnLeaseLostStopsTheHoldersThread() throws Exception {
        // Long enough that a loaded host's late renewal never lets the hold lapse before the force-unlock
        // below finds it; the loss is still seen at the next renewal, lease/3 on.
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(Duration.ofSeconds(2))
                .interruptOnLeaseLost(true)
                .build();
        String name = Names.fresh("interrupt");
        try (LockClient client =
                        LockClient.create(RedisURI.create(redis.server().uri()), options);
                LockClient operator =
                        LockClient.create(RedisURI.create(redis.server().uri()))) {
            RedisLock lock = client.getLock(name);
            CountDownLatch holding = new CountDownLatch(1);
            OtherThread<Throwable> worker = OtherThread.start(() -> {
                lock.lock();
                try {
                    holding.countDown();
                    Thread.sleep(30_000);
                    return null;
                } catch (InterruptedException e) {
                    return e;
                } finally {
                    try {
                        lock.unlock();
                    } catch (LockLeaseExpiredException expected) {
                        // reported again at unlock, as documented
                    }
                }
            });
            assertThat(holding.await(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS))
                    .isTrue();
            assertThat(operator.getLock(name).forceUnlock()).isTrue();
            assertThat(worker.get()).isInstanceOf(InterruptedException.class);
        }
    }

    @Test
    void aHolderIsToldItsLockIsGoneWhenRedisRestartsEmpty() throws Exception {
        RedisServer server = redis.startAnother();
        RecordingListener events = new RecordingListener();
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(Duration.ofMillis(900))
                .listener(events)
                .build();
        String name = Names.fresh("restarted");
        try (LockClient client = LockClient.create(RedisURI.create(server.uri()), options)) {
            RedisLock lock = client.getLock(name);
            lock.lock();
            server.restart(); // no persistence: the lock, the scripts and the fencing counter are gone
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !events.leaseLosses(name).isEmpty());
            assertThat(events.leaseLosses(name)).hasSize(1);
            assertThatThrownBy(lock::unlock).isInstanceOf(LockLeaseExpiredException.class);
            assertThat(lock.tryLock(Duration.ofSeconds(5)))
                    .as("scripts load again, new acquisitions succeed")
                    .isTrue();
            lock.unlock();
        }
    }

    @Test
    void redisRestartedUnderLoadRecoversWithoutHungThreads() throws Exception {
        RedisServer server = redis.startAnother();
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(Duration.ofMillis(1500))
                .build();
        String name = Names.fresh("restart");
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong afterRestart = new AtomicLong();
        AtomicBoolean restarted = new AtomicBoolean();
        AtomicReference<Thread> inside = new AtomicReference<>();
        AtomicInteger overlaps = new AtomicInteger();
        try (LockClient client = LockClient.create(RedisURI.create(server.uri()), options)) {
            List<OtherThread<Void>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                workers.add(OtherThread.start(() -> {
                    RedisLock lock = client.getLock(name);
                    Thread me = Thread.currentThread();
                    while (!stop.get()) {
                        try {
                            if (lock.tryLock(Duration.ofSeconds(1))) {
                                try {
                                    // Who is inside, not how many: a failed call of another thread cannot
                                    // disturb the count (resetting a counter there once made one overlap
                                    // look like dozens).
                                    if (!inside.compareAndSet(null, me)) {
                                        overlaps.incrementAndGet();
                                    }
                                    Thread.sleep(2);
                                    inside.compareAndSet(me, null);
                                } finally {
                                    lock.unlock();
                                }
                                if (restarted.get()) {
                                    afterRestart.incrementAndGet();
                                }
                            }
                        } catch (LockException | LockLeaseExpiredException e) {
                            // the restart cut this call short (Redis unreachable, or the hold gone): expected, and
                            // reported
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(500);
            server.restart(); // SIGKILL, then a fresh empty server on the same port: no scripts, no keys
            restarted.set(true);
            await().atMost(Duration.ofSeconds(30)).until(() -> afterRestart.get() >= 20);
            stop.set(true);
            for (OtherThread<Void> worker : workers) {
                worker.get(); // bounded: a hung thread fails the test
            }
            assertThat(overlaps).hasValue(0);
        }
    }
}
