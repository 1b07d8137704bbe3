package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisLock;
import dev.distlock.testsupport.Answered;
import dev.distlock.testsupport.IntegrationTest;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * The raw floors against a real Redis: the bare floor takes and frees its own key, and the floor with
 * distlock's scripts writes exactly what distlock writes, so that a distlock client sees its hold as a
 * hold (otherwise its table would measure some other script, not distlock's).
 */
@IntegrationTest
class RawFloorProviderTest {

    @Test
    void theBareFloorTakesAndFreesItsOwnKey() throws Exception {
        try (RedisServer redis = RedisServer.start();
                RawFloorProvider floor = new RawFloorProvider(redis.host(), redis.port(), false)) {
            Lock lock = floor.lock("k");
            assertThat(lock.tryLock()).isTrue();
            assertThat(redis.query("EXISTS", "raw:k")).isEqualTo(":1");
            assertThat(lock.tryLock()).as("a taken key is not taken again").isFalse();
            lock.unlock();
            assertThat(redis.query("EXISTS", "raw:k")).isEqualTo(":0");
        }
    }

    @Test
    void withDistlocksScriptsItHoldsTheLockAsDistlockWouldAndDistlockSeesIt() throws Exception {
        try (RedisServer redis = RedisServer.start();
                RawFloorProvider floor = new RawFloorProvider(redis.host(), redis.port(), true);
                LockClient distlock = LockClient.create(RedisURI.create(redis.host(), redis.port()))) {
            Lock lock = floor.lock("k");
            RedisLock same = distlock.getLock("k");

            assertThat(lock.tryLock()).isTrue();
            assertThat(redis.query("HGET", "lock:{k}", "~token"))
                    .as("a fencing token from distlock's acquire script")
                    .matches("\\d{10,}");
            assertThat(redis.query("EXISTS", "lock:{k}:fence")).isEqualTo(":1");
            // sent again while Redis's answer does not come within the wait (this client's first call connects
            // and loads its scripts, which a loaded host may take longer than that over)
            assertThat(Answered.call(LockUnavailableException.class, () -> same.tryLock(Waits.RUNS_OUT)))
                    .as("distlock sees the floor's hold")
                    .isFalse();

            lock.unlock();
            // distlock's client found it busy ('~w'), so the release may reserve the lock for that client's turn
            // for a moment (DistlockScriptCall's RESERVE_MS, as distlock's own release does) before it is gone
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (redis.query("EXISTS", "lock:{k}").equals(":1") && System.nanoTime() - deadline < 0) {
                Thread.sleep(10);
            }
            assertThat(redis.query("EXISTS", "lock:{k}"))
                    .as("the released lock gone from Redis")
                    .isEqualTo(":0");
            assertThat(redis.query("KEYS", "lock:{k}:released:*"))
                    .as("distlock's release script leaves its note")
                    .isNotBlank();
            assertThat(same.tryLock(Waits.GRANTED))
                    .as("and the released lock is free for distlock")
                    .isTrue();
            same.unlock();

            assertThat(lock.tryLock()).as("a second grant").isTrue();
            lock.unlock();
        }
    }
}
