package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisClusterSetup;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlotMove;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Background give-backs ride out a Cluster slot migration that stays open longer than the operation
 * timeout (issue 48, item 2): Redis answers TRYAGAIN (and ASK) while a lock's keys are split between
 * two masters; the give-back is retried until the lease it concerns ends, so the lock is freed soon
 * after the slot settles instead of staying held for the rest of its lease.
 */
@Timeout(180)
@SlowTest
class ClusterGiveBackTest {

    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(1);
    /** How long the slot stays open: several operation timeouts. */
    private static final Duration OPEN = Duration.ofSeconds(5);
    /** Far beyond the open slot, so that a key freed by its lease's end could not pass for a give-back. */
    private static final Duration LEASE = Duration.ofSeconds(60);
    /** From the slot's settling to the give-back's landing: one back-off (at most 250 ms) plus slack. */
    private static final Duration SOON = Duration.ofSeconds(10);

    private RedisClusterSetup cluster;
    private RedisClusterClient redis;
    private LockClient client;

    @BeforeEach
    void start() {
        cluster = RedisClusterSetup.start();
        redis = RedisClusterClient.create(
                cluster.uris().stream().map(RedisURI::create).toList());
        client = LockClient.create(
                redis,
                LockClientOptions.builder()
                        .operationTimeout(OPERATION_TIMEOUT)
                        .watchdogLease(LEASE)
                        .build());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (redis != null) {
            ClientShutdown.shutdown(redis);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void anUnconfirmedReleaseLandsOnceTheSlotSettles() throws Exception {
        String name = Names.fresh("give-back");
        int slot = SlotHash.getSlot(key(name));
        RedisLock lock = client.getLock(name);
        lock.lock();
        RedisServer source = cluster.ownerOf(slot);
        SlotMove move = cluster.beginMigration(slot, nextMaster(source));
        // the lock key moves, its fencing counter stays: every script on it meets TRYAGAIN until the rest moves
        move.moveKeys(key(name));

        assertThatThrownBy(lock::unlock)
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("retried in the background");
        // The slot's stay open, not a condition: the give-back must outlast it.
        Thread.sleep(OPEN.toMillis());
        assertThat(move.target().query("CLUSTER", "GETKEYSINSLOT", String.valueOf(slot), "100"))
                .as("still held while the slot is open (the target answers EXISTS with ASK until then)")
                .contains(key(name));
        RedisServer target = move.moveRemainingKeys(10, Duration.ZERO).finish().to();
        long settled = System.nanoTime();

        await("lock given back after the slot settled")
                .atMost(SOON)
                .until(() -> target.command("EXISTS", key(name)).equals(":0"));
        assertThat(Duration.ofNanos(System.nanoTime() - settled)).isLessThan(SOON);
    }

    @Test
    void aWaiterThatGaveUpWhileTheSlotWasOpenLeavesNoWaitingMarkOnceItSettles() throws Exception {
        String name = Names.fresh("leave");
        int slot = SlotHash.getSlot(key(name));
        try (LockClient holderClient = LockClient.create(redis, LockClientOptions.defaults())) {
            RedisLock held = holderClient.getLock(name);
            held.lock();
            // A waiter of the quick client finds the lock busy and is marked as its client's waiting one ('~w')
            OtherThread<Boolean> waiter = OtherThread.start(() -> {
                try {
                    return client.getLock(name).tryLock(Duration.ofSeconds(3));
                } catch (LockUnavailableException refusedUntilTheEnd) { // TRYAGAIN up to the wait's end
                    return false;
                }
            });
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> cluster.ownerOf(slot)
                            .command("HEXISTS", key(name), "~w")
                            .equals(":1"));
            RedisServer source = cluster.ownerOf(slot);
            SlotMove move = cluster.beginMigration(slot, nextMaster(source));
            move.moveKeys(key(name)); // the lock hash moves, its fencing counter stays: its scripts meet TRYAGAIN

            assertThat(waiter.get())
                    .as("the wait ran out while the lock was held")
                    .isFalse();
            // The slot's stay open, not a condition: the waiter's leave must outlast it.
            Thread.sleep(OPEN.toMillis());
            RedisServer target =
                    move.moveRemainingKeys(10, Duration.ZERO).finish().to();

            await("the waiter's mark taken back after the slot settled")
                    .atMost(SOON)
                    .until(() -> target.command("HEXISTS", key(name), "~w").equals(":0"));
            held.unlock();
        }
    }

    private RedisServer nextMaster(RedisServer node) {
        List<RedisServer> masters = cluster.nodes();
        return masters.get((masters.indexOf(node) + 1) % masters.size());
    }

    private static String key(String name) {
        return LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).lock();
    }
}
