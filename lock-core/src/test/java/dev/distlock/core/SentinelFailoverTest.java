package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.testsupport.RedisSentinelSetup;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A {@link LockClient} over a Sentinel-configured Lettuce {@link RedisClient}: after the master
 * crashes and Sentinel promotes the replica, the client reconnects to the new master and new
 * acquisitions succeed again.
 */
class SentinelFailoverTest {

    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);

    private RedisSentinelSetup sentinel;
    private RedisClient redis;
    private LockClient client;

    @BeforeEach
    void start() {
        sentinel = RedisSentinelSetup.start();
        RedisURI.Builder uri = RedisURI.Builder.sentinel("127.0.0.1", sentinel.sentinelPorts().get(0), sentinel.masterName());
        sentinel.sentinelPorts().subList(1, 3).forEach(port -> uri.withSentinel("127.0.0.1", port));
        redis = RedisClient.create(uri.withTimeout(Duration.ofSeconds(5)).build());
        client = LockClient.create(redis, LockClientOptions.defaults());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (redis != null) {
            redis.shutdown();
        }
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @Test
    void keepsLockingAfterTheMasterIsKilledAndTheReplicaPromoted() throws Exception {
        RedisLock before = client.getLock(Names.fresh("before"));
        assertThat(before.tryLock()).isTrue();
        before.unlock();
        int oldMaster = sentinel.masterPort();

        sentinel.killMaster();
        long killed = System.nanoTime();

        // every attempt after the crash either fails with a Redis error or returns; once failed over, they succeed
        await().atMost(FAILOVER_BOUND).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
            RedisLock lock = client.getLock(Names.fresh("after"));
            if (!lock.tryLock(Duration.ofSeconds(1))) {
                return false;
            }
            lock.unlock();
            return true;
        });
        assertThat(sentinel.masterPort()).as("the replica was promoted").isNotEqualTo(oldMaster);
        Duration recovered = Duration.ofNanos(System.nanoTime() - killed);

        // and keeps working: re-entry, exclusion against another thread, wake-up, fair and read/write kinds
        String name = Names.fresh("steady");
        RedisLock lock = client.getLock(name);
        assertThat(lock.tryLock(Duration.ofSeconds(5))).isTrue();
        assertThat(lock.tryLock()).isTrue();
        assertThat(OtherThread.call(() -> client.getLock(name).tryLock())).isFalse();
        lock.unlock();
        lock.unlock();
        RedisLock fair = client.getFairLock(Names.fresh("fair"));
        assertThat(fair.tryLock(Duration.ofSeconds(5))).isTrue();
        fair.unlock();
        RedisReadWriteLock rw = client.getReadWriteLock(Names.fresh("rw"));
        assertThat(rw.writeLock().tryLock(Duration.ofSeconds(5))).isTrue();
        rw.writeLock().unlock();
        assertThat(sentinel.master().command("EXISTS", "lock:{" + name + "}")).isEqualTo(":0");
        assertThat(recovered).isLessThan(FAILOVER_BOUND);
    }
}
