package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisSentinelSetup;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
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
@SlowTest
class SentinelFailoverTest {

    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);
    /** Longer than a failover takes here (~5 s), renewed every 5 s. */
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(15);

    private RedisSentinelSetup sentinel;
    private RedisClient redis;
    private LockClient client;

    @BeforeEach
    void start() {
        sentinel = RedisSentinelSetup.start();
        RedisURI.Builder uri =
                RedisURI.Builder.sentinel("127.0.0.1", sentinel.sentinelPorts().get(0), sentinel.masterName());
        sentinel.sentinelPorts().subList(1, 3).forEach(port -> uri.withSentinel("127.0.0.1", port));
        redis = RedisClient.create(uri.withTimeout(Duration.ofSeconds(5)).build());
        client = LockClient.create(
                redis, LockClientOptions.builder().watchdogLease(WATCHDOG_LEASE).build());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (redis != null) {
            ClientShutdown.shutdown(redis);
        }
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @Test
    void keepsLockingAfterTheMasterIsKilledAndTheReplicaPromoted() throws Exception {
        RedisLock before = client.getLock(Names.fresh("before"));
        assertThat(tryOnce(before)).isTrue();
        before.unlock();
        int oldMaster = sentinel.masterPort();
        // held across the failover: once the replica has the key, the promoted replica keeps the lock
        RedisLock held = client.getLock(Names.fresh("held"));
        held.lock();
        String heldKey = "lock:{" + held.getKey() + "}";
        await().atMost(Duration.ofSeconds(5))
                .until(() -> sentinel.replica().command("EXISTS", heldKey).equals(":1"));
        // a semaphore permit held across the failover too
        RedisSemaphore heldSemaphore = client.getSemaphore(Names.fresh("held-permits"), 2);
        LockHandle permit = heldSemaphore.acquire();
        String permitKey = "lock:{" + heldSemaphore.getKey() + "}";
        await().atMost(Duration.ofSeconds(5))
                .until(() -> sentinel.replica().command("EXISTS", permitKey).equals(":1"));

        sentinel.killMaster();
        long killed = System.nanoTime();

        // every attempt after the crash either fails with a Redis error or returns; once failed over, they succeed
        await().atMost(FAILOVER_BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
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
        assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
        assertThat(tryOnce(lock)).isTrue();
        assertThat(OtherThread.call(() -> tryOnce(client.getLock(name)))).isFalse();
        lock.unlock();
        lock.unlock();
        RedisLock fair = client.getFairLock(Names.fresh("fair"));
        assertThat(fair.tryLock(Duration.ofSeconds(5))).isTrue();
        fair.unlock();
        RedisReadWriteLock rw = client.getReadWriteLock(Names.fresh("rw"));
        assertThat(rw.writeLock().tryLock(Duration.ofSeconds(5))).isTrue();
        rw.writeLock().unlock();
        RedisSemaphore semaphore = client.getFairSemaphore(Names.fresh("sem"), 2);
        LockHandle one = semaphore.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        assertThat(semaphore.tryAcquire(2, Duration.ZERO, null))
                .as("one of two permits left")
                .isEmpty();
        one.unlock();
        assertThat(sentinel.master().command("EXISTS", "lock:{" + name + "}")).isEqualTo(":0");
        assertThat(recovered).isLessThan(FAILOVER_BOUND);

        // the watchdog renews the held lock on the new master (its TTL only grows by a renewal), and it releases
        // cleanly
        assertThat(held.isHeldByCurrentThread()).isTrue();
        long ttl = Long.parseLong(sentinel.master().command("PTTL", heldKey).substring(1));
        assertThat(ttl).as("the promoted replica has the held lock").isPositive();
        await().atMost(WATCHDOG_LEASE)
                .until(() -> Long.parseLong(
                                sentinel.master().command("PTTL", heldKey).substring(1))
                        > ttl + 500);
        held.unlock();
        assertThat(sentinel.master().command("EXISTS", heldKey)).isEqualTo(":0");
        assertThat(permit.isHeld()).as("the permit kept across the failover").isTrue();
        assertThat(heldSemaphore.availablePermits()).isEqualTo(1);
        permit.unlock();
        assertThat(sentinel.master().command("EXISTS", permitKey)).isEqualTo(":0");
    }
}
