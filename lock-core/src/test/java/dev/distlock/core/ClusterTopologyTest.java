package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.ClusterClients;
import dev.distlock.core.testing.Contenders;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.Settled;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisClusterSetup;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every lock kind on a real three-master Redis Cluster through a Lettuce {@link RedisClusterClient}:
 * names spread over all nodes, multi-locks across slots, and wake-ups published on one node reaching
 * a waiter subscribed on another.
 */
@SlowTest
class ClusterTopologyTest {

    private static final Duration PROMPTLY = Duration.ofSeconds(5);
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    @RegisterExtension
    static final ClusterClients clusters = new ClusterClients();

    private static RedisClusterSetup cluster;
    private static RedisClusterClient redisA;
    private static RedisClusterClient redisB;

    private LockClient client;
    private LockClient other;

    @BeforeAll
    static void clients() {
        cluster = clusters.cluster();
        redisA = clusters.newClient();
        redisB = clusters.newClient();
    }

    @BeforeEach
    void connect() {
        client = LockClient.create(redisA, LockClientOptions.defaults());
        other = LockClient.create(redisB, LockClientOptions.defaults());
    }

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    static Map<String, BiFunction<LockClient, String, RedisLock>> kinds() {
        Map<String, BiFunction<LockClient, String, RedisLock>> kinds = new LinkedHashMap<>();
        kinds.put("reentrant", LockClient::getLock);
        kinds.put("fair", LockClient::getFairLock);
        kinds.put("read", (c, n) -> c.getReadWriteLock(n).readLock());
        kinds.put("write", (c, n) -> c.getReadWriteLock(n).writeLock());
        return kinds;
    }

    /**
     * At least {@code count} fresh names whose lock keys together land on every master: names are
     * drawn until both hold (random names alone miss a master now and then).
     */
    private static List<String> namesOnEveryNode(String hint, int count) {
        List<String> names = new ArrayList<>();
        Set<Integer> nodes = new HashSet<>();
        int masters = cluster.nodes().size();
        for (int i = 0; (i < count || nodes.size() < masters) && i < count * 20; i++) {
            String name = Names.fresh(hint);
            names.add(name);
            nodes.add(cluster.nodeFor(LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name)
                            .lock())
                    .port());
        }
        assertThat(nodes).as("the names cover every master").hasSize(masters);
        return names;
    }

    @Test
    void everyKindLocksReentersAndReleasesNamesOnEveryNode() throws Exception {
        for (var kind : kinds().entrySet()) {
            for (String name : namesOnEveryNode(kind.getKey(), 24)) {
                RedisLock lock = kind.getValue().apply(client, name);
                assertThat(lock.tryLock(Waits.GRANTED))
                        .as("%s %s", kind.getKey(), name)
                        .isTrue();
                long token = lock.currentFencingToken();
                assertThat(token).isPositive();
                assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
                assertThat(lock.getHoldCount()).isEqualTo(2);
                assertThat(lock.currentFencingToken()).isEqualTo(token);
                String key =
                        LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).lock();
                assertThat(cluster.nodeFor(key).command("EXISTS", key))
                        .as("key on its own node")
                        .isEqualTo(":1");
                if (!kind.getKey().equals("read")) {
                    assertThat(OtherThread.call(() -> tryOnce(kind.getValue().apply(other, name))))
                            .as("other owner kept out")
                            .isFalse();
                }
                lock.unlock();
                lock.unlock();
                assertThat(lock.isHeldByCurrentThread()).isFalse();
                assertThat(lock.isLocked()).isFalse();
                // the next grant of the same name gets a larger token
                assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
                assertThat(lock.currentFencingToken()).isGreaterThan(token);
                lock.unlock();
            }
        }
    }

    @Test
    void readersShareAndAWriterExcludesThemOnEveryNode() throws Exception {
        for (String name : namesOnEveryNode("rw", 12)) {
            RedisReadWriteLock mine = client.getReadWriteLock(name);
            RedisReadWriteLock theirs = other.getReadWriteLock(name);
            mine.readLock().lock();
            assertThat(OtherThread.call(() -> {
                        boolean read = tryOnce(theirs.readLock());
                        if (read) {
                            theirs.readLock().unlock();
                        }
                        return read;
                    }))
                    .isTrue();
            assertThat(OtherThread.call(() -> tryOnce(theirs.writeLock()))).isFalse();
            mine.readLock().unlock();
            assertThat(OtherThread.call(() -> {
                        boolean write = tryOnce(theirs.writeLock());
                        if (write) {
                            theirs.writeLock().unlock();
                        }
                        return write;
                    }))
                    .isTrue();
        }
    }

    @Test
    void multiLockTakesNamesInDifferentSlotsOnDifferentNodes() throws Exception {
        List<String> names = namesOnEveryNode("multi", 12);
        Set<Integer> slots = new HashSet<>();
        names.forEach(n -> slots.add(cluster.slotOf(
                LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, n).lock())));
        assertThat(slots).hasSizeGreaterThan(1);

        RedisMultiLock multi = client.getMultiLock(names.toArray(String[]::new));
        assertThat(multi.tryLock(Waits.GRANTED)).isTrue();
        assertThat(multi.fencingTokens()).containsOnlyKeys(names);
        for (String name : names) {
            assertThat(other.getLock(name).isLocked()).isTrue();
        }
        assertThat(OtherThread.call(() -> tryOnce(other.getMultiLock(names.get(0), names.get(names.size() - 1)))))
                .isFalse();
        multi.lock(); // re-entry
        multi.unlock();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();
        for (String name : names) {
            assertThat(other.getLock(name).isLocked()).isFalse();
        }
    }

    @Test
    void aReleaseWakesAWaiterOfAnotherClientPromptlyOnEveryNode() throws Exception {
        for (var kind : kinds().entrySet()) {
            if (kind.getKey().equals("read")) {
                continue; // readers do not wait for readers
            }
            // one name per node: the release publishes there, the waiter's subscription may sit on any node
            Map<Integer, String> oneNamePerNode = new LinkedHashMap<>();
            for (String name : namesOnEveryNode(kind.getKey(), 24)) {
                RedisServer node = cluster.nodeFor(
                        LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).lock());
                oneNamePerNode.putIfAbsent(node.port(), name);
            }
            for (String name : oneNamePerNode.values()) {
                RedisLock held = kind.getValue().apply(client, name);
                held.lock(LONG_LEASE);
                OtherThread<Long> waiter = OtherThread.start(() -> {
                    RedisLock lock = kind.getValue().apply(other, name);
                    if (!lock.tryLock(Duration.ofSeconds(25))) {
                        return -1L;
                    }
                    long at = System.nanoTime();
                    lock.unlock();
                    return at;
                });
                await().atMost(Duration.ofSeconds(5)).until(() -> other.subscribedChannels() == 1);

                long released = System.nanoTime();
                held.unlock();

                long acquired = waiter.get();
                assertThat(acquired).as("%s %s acquired", kind.getKey(), name).isNotEqualTo(-1L);
                assertThat(Duration.ofNanos(acquired - released))
                        .as("%s %s", kind.getKey(), name)
                        .isLessThan(PROMPTLY);
                await().atMost(Duration.ofSeconds(5)).until(() -> other.subscribedChannels() == 0);
            }
        }
    }

    @Test
    void noReleaseSendsAMessageOverTheClusterBus() throws Exception {
        // A PUBLISH in Redis Cluster goes to every node over the cluster bus; nobody waits here. The other
        // tests' wake-ups may still be crossing it: start once the count is still.
        long before = Settled.value(ClusterTopologyTest::publishesReceived);
        for (String name : namesOnEveryNode("quiet", 12)) {
            RedisLock lock = client.getLock(name);
            for (int i = 0; i < 5; i++) {
                lock.lock();
                lock.unlock();
            }
        }
        // a message would cross the bus within milliseconds: none may arrive for half a second
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(ClusterTopologyTest::publishesReceived, n -> n == before);

        // A release somebody waited for publishes with SPUBLISH (sharded pub/sub, Redis 7): it wakes the
        // waiter, subscribed on the shard of the lock's slot, and crosses the bus no more than silence does.
        String name = namesOnEveryNode("waited", 1).get(0);
        RedisLock held = client.getLock(name);
        held.lock(LONG_LEASE);
        OtherThread<Boolean> waiter = Contenders.takesAndReleases(() -> other.getLock(name), Duration.ofSeconds(25));
        await().atMost(Duration.ofSeconds(5)).until(() -> other.subscribedChannels() == 1);
        held.unlock();
        assertThat(waiter.get()).isTrue();
        await().during(Duration.ofMillis(500))
                .atMost(Duration.ofSeconds(5))
                .until(ClusterTopologyTest::publishesReceived, n -> n == before);
    }

    /** PUBLISH messages the nodes received over the cluster bus, summed (CLUSTER INFO leaves out a zero count). */
    private static long publishesReceived() {
        long sum = 0;
        for (RedisServer node : cluster.nodes()) {
            sum += node.query("CLUSTER", "INFO")
                    .lines()
                    .filter(l -> l.startsWith("cluster_stats_messages_publish_received:"))
                    .mapToLong(
                            l -> Long.parseLong(l.substring(l.indexOf(':') + 1).trim()))
                    .sum();
        }
        return sum;
    }
}
