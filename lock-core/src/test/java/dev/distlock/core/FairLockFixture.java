package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.engine.FairKind;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.core.testing.RedisMonitor;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the fair-lock tests share: a standalone Redis, two clients (the first with a recording listener), a
 * probe, and a fresh lock name with its keys.
 */
abstract class FairLockFixture {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** Waiters that never re-check on their own within a test: only a wake-up message can move them. */
    static final FairKind SLEEPY = new FairKind(Duration.ofSeconds(60), Duration.ofSeconds(60));

    /**
     * Short, so that renewals come every lease/3 within a test, yet long enough that a renewal a loaded host
     * sends late (a JVM descheduled for a second) still lands before the lease ends.
     */
    static final Duration WATCHDOG_LEASE = Duration.ofSeconds(2);

    final RecordingListener events = new RecordingListener();
    LockClient client;
    LockClient otherClient;
    RedisProbe probe;
    String name;
    LockKeys keys;

    @BeforeEach
    void setUp() {
        client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().listener(events).build());
        otherClient = LockClient.create(RedisURI.create(redis.server().uri()));
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("fair");
        keys = LockKeys.of("lock:", name);
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherClient.close();
        probe.close();
    }

    /**
     * Runs a fair lock and unlock on another name first: a script Redis has not seen is sent whole
     * (EVAL after NOSCRIPT), and a MONITOR line that long is more than its parser takes.
     */
    void loadFairScripts() {
        RedisLock warm = client.getFairLock(name + "-warm-up");
        warm.lock();
        warm.unlock();
    }

    /** What a line of queued waiters saw: the order in which they held the lock, and each one's fencing token. */
    static final class Line {
        final List<Integer> order = new CopyOnWriteArrayList<>();
        final List<Long> tokens = new CopyOnWriteArrayList<>();
        final List<OtherThread<Void>> waiters = new ArrayList<>();

        void awaitAll() throws Exception {
            for (OtherThread<Void> waiter : waiters) {
                waiter.get();
            }
        }
    }

    /**
     * Queues one {@link #SLEEPY} waiter per entry of {@code clients}, of that client, each once the one before
     * it is queued; each holds the lock when handed it, notes its turn and token, and releases it.
     */
    Line queueLine(LockClient... clients) {
        Line line = new Line();
        for (int i = 0; i < clients.length; i++) {
            int id = i;
            LockClient waiterClient = clients[i];
            line.waiters.add(OtherThread.start(() -> {
                RedisLock lock = waiterClient.getLock(SLEEPY, name, name);
                if (!lock.tryLock(Waits.GRANTED)) {
                    throw new AssertionError("waiter " + id + " not acquired");
                }
                try {
                    line.order.add(id);
                    line.tokens.add(lock.currentFencingToken());
                } finally {
                    lock.unlock();
                }
                return null;
            }));
            await().atMost(Duration.ofSeconds(10)).until(() -> queue().size() == id + 1);
        }
        return line;
    }

    /** A step of a test that may throw. */
    interface Step {
        void run() throws Exception;
    }

    /** Runs {@code step}, the fair scripts loaded first, and counts the calls of {@code script} clients sent meanwhile. */
    long callsWhile(LockScript script, Step step) throws Exception {
        loadFairScripts();
        try (RedisMonitor monitor = RedisMonitor.start(redis.server())) {
            step.run();
            probe.sync().echo("step-done");
            return monitor.commandsUntil("step-done").stream()
                    .filter(c -> !c.fromScript() && c.words().contains(script.sha1()))
                    .count();
        }
    }

    List<String> queue() {
        return probe.sync().lrange(keys.queue(), 0, -1);
    }

    Map<String, Double> deadlines(List<String> owners) {
        Map<String, Double> result = new java.util.HashMap<>();
        for (String owner : owners) {
            result.put(owner, probe.sync().zscore(keys.timeouts(), owner));
        }
        return result;
    }

    void assertNoQueueLeft() {
        assertThat(probe.sync().exists(keys.queue(), keys.timeouts()))
                .as("queue and timeouts keys")
                .isZero();
    }
}
