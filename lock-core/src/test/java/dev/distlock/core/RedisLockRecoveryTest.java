package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Locks keep working when Redis forgets its script cache or restarts. */
@BehaviourTest
class RedisLockRecoveryTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private LockClient client;
    private RedisProbe probe;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(RedisURI.create(redis.server().uri()));
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("recovery");
    }

    @AfterEach
    void tearDown() {
        client.close();
        probe.close();
    }

    @Test
    void lockAndUnlockWorkAfterScriptFlush() throws Exception {
        RedisLock lock = client.getLock(name);
        lock.lock();
        lock.unlock();

        assertThat(redis.server().command("SCRIPT", "FLUSH")).isEqualTo("+OK");
        assertThat(probe.sync().scriptExists(LockScript.ACQUIRE.sha1(), LockScript.RELEASE.sha1()))
                .containsExactly(false, false);

        lock.lock();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(probe.sync().scriptExists(LockScript.ACQUIRE.sha1(), LockScript.RELEASE.sha1()))
                .as("EVAL cached the scripts again")
                .containsExactly(true, true);
    }

    @Test
    void heldLockCanBeReleasedAfterScriptFlush() {
        RedisLock lock = client.getLock(name);
        lock.lock();
        lock.lock();

        redis.server().command("SCRIPT", "FLUSH");

        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void watchdogRenewsAfterScriptFlush() {
        RecordingListener events = new RecordingListener();
        try (LockClient watched = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        // renewed every lease/3; long enough that a late renewal on a loaded host still
                        // lands in time, since no loss may be reported here
                        .watchdogLease(Duration.ofSeconds(2))
                        .listener(events)
                        .build())) {
            RedisLock lock = watched.getLock(name);
            lock.lock();
            redis.server().command("SCRIPT", "FLUSH");

            await().atMost(Waits.GRANTED)
                    .until(() -> events.renewals(name, LockListener.RenewalOutcome.RENEWED)
                                    .size()
                            >= 3);
            assertThat(events.leaseLosses).isEmpty();
            lock.unlock();
        }
    }

    @Test
    void locksWorkAgainAfterRedisRestarts() {
        RedisLock lock = client.getLock(name);
        lock.lock();
        lock.unlock();

        redis.server().restart(); // a crash: the script cache and all keys are gone

        await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> {
            lock.lock();
            lock.unlock();
            return true;
        });
        lock.lock();
        assertThat(probe.sync().exists("lock:{" + name + "}")).isEqualTo(1L);
        lock.unlock();
    }
}
