package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.engine.FairKind;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
