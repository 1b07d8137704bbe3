package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.Contenders;
import dev.distlock.core.testing.FairGrantRun;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.ServerStats;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisClusterSetup;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Wake-ups on a real three-master Redis Cluster (Redis 7): with sharded pub/sub ({@link PubSubMode#AUTO} or
 * {@link PubSubMode#SHARDED}), a release reaches only the shard that owns the lock's slot, where its waiter
 * is subscribed, and none of the other masters; with {@link PubSubMode#PLAIN} (or AUTO under the deprecated
 * {@code -Ddistlock.sharded-pubsub=false}), PUBLISH reaches every master. Observers are
 * plain connections to each master: SUBSCRIBE on every one (what a PUBLISH reaches, over the cluster bus
 * too), SSUBSCRIBE on the owner (what an SPUBLISH reaches).
 */
@SlowTest
class ClusterShardedPubSubTest {

    /** The holder's lease: a waiter that missed the wake-up would sleep about this long. */
    private static final Duration LONG_LEASE = Duration.ofMinutes(2);

    private static final String MARKER = "marker";

    private static RedisClusterSetup cluster;
    private static RedisClusterClient redis;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterSetup.start();
        redis = RedisClusterClient.create(
                cluster.uris().stream().map(RedisURI::create).toList());
    }

    @AfterAll
    static void stopCluster() {
        if (redis != null) {
            ClientShutdown.shutdown(redis);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = PubSubMode.class,
            names = {"AUTO", "SHARDED"})
    void aReleaseWakesItsWaiterThroughTheShardOfItsSlotOnly(PubSubMode mode) throws Exception {
        String name = Names.fresh("sharded");
        String channel = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).channel();
        RedisServer owner = cluster.nodeFor(channel);
        LockClientOptions options = LockClientOptions.builder().pubSub(mode).build();
        LockClient holder = open(() -> LockClient.create(redis, options));
        LockClient waiting = open(() -> LockClient.create(redis, options));
        List<Observer> plain =
                cluster.nodes().stream().map(n -> subscribe(n, channel, false)).toList();
        Observer sharded = subscribe(owner, channel, true);
        long published = ServerStats.calls(owner, "publish");

        // the waiter's own SSUBSCRIBE went to the owner too: two shard subscribers there
        handOff(holder, waiting, name, () -> shardSubscribers(owner, channel) == 2);

        owner.query("PUBLISH", channel, MARKER);
        owner.query("SPUBLISH", channel, MARKER);
        for (Observer o : plain) {
            assertThat(o.beforeMarker()).as("SUBSCRIBE on port %d", o.port).isEmpty();
        }
        // the holder's release, and the waiter's own, which still sees the waiting mark
        assertThat(sharded.beforeMarker()).as("SSUBSCRIBE on the owner").isNotEmpty();
        assertThat(ServerStats.calls(owner, "publish"))
                .as("PUBLISH on the owner: the marker's only")
                .isEqualTo(published + 1);
    }

    @Test
    void withPubSubPlainAReleaseIsBroadcastToEveryMaster() throws Exception {
        LockClientOptions plain =
                LockClientOptions.builder().pubSub(PubSubMode.PLAIN).build();
        broadcastHandOff(() -> LockClient.create(redis, plain));
    }

    @Test
    void theDeprecatedPropertyStillTurnsShardedPubSubOffUnderAuto() throws Exception {
        broadcastHandOff(() -> plainPublish(() -> LockClient.create(redis, LockClientOptions.defaults())));
    }

    /** Two clients {@code open} makes hand a lock off, the release broadcast by PUBLISH to every master. */
    private void broadcastHandOff(Supplier<LockClient> make) throws Exception {
        String name = Names.fresh("broadcast");
        String channel = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).channel();
        RedisServer owner = cluster.nodeFor(channel);
        LockClient holder = open(make);
        LockClient waiting = open(make);
        List<Observer> plain =
                cluster.nodes().stream().map(n -> subscribe(n, channel, false)).toList();
        long spublished = ServerStats.calls(owner, "spublish");

        handOff(holder, waiting, name, () -> shardSubscribers(owner, channel) == 0);

        owner.query("PUBLISH", channel, MARKER);
        List<String> onOwner = plain.stream()
                .filter(o -> o.port == owner.port())
                .findFirst()
                .orElseThrow()
                .beforeMarker();
        assertThat(onOwner).isNotEmpty();
        for (Observer o : plain) {
            assertThat(o.beforeMarker()).as("SUBSCRIBE on port %d", o.port).isEqualTo(onOwner);
        }
        assertThat(ServerStats.calls(owner, "spublish"))
                .as("SPUBLISH on the owner")
                .isEqualTo(spublished);
    }

    @Test
    void aWaiterWhoseShardSubscriptionDroppedIsWokenOnceItIsBack() throws Exception {
        String name = Names.fresh("sharded-reconnect");
        String key = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).lock();
        String channel = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).channel();
        RedisServer owner = cluster.nodeFor(channel);
        LockClient holder = open(() -> LockClient.create(redis, LockClientOptions.defaults()));
        LockClient waiting = open(() -> LockClient.create(redis, LockClientOptions.defaults()));
        RedisLock held = holder.getLock(name);
        held.lock(LONG_LEASE);
        OtherThread<Boolean> waiter =
                OtherThread.start(() -> waiting.getLock(name).tryLock(LONG_LEASE.multipliedBy(2)));
        await().atMost(Waits.GRANTED)
                .until(() -> owner.query("HEXISTS", key, "~w").equals(":1") && shardSubscribers(owner, channel) == 1);

        // the owner drops the waiter's shard subscription, and the release's SPUBLISH finds nobody
        owner.query("CLIENT", "KILL", "TYPE", "pubsub");
        held.unlock();

        // Lettuce reconnects and subscribes again; the confirmation sends the waiter to look again
        assertThat(waiter.get())
                .as("the waiter got the lock well within the lease it would have slept")
                .isTrue();
    }

    /**
     * A fair release's grant travels in the SPUBLISH on its waiter's own channel: the waiter, of another client
     * and re-checking only every 60 s, holds the lock from that message, and the owner of the slot runs no
     * script between the release and the waiter's hold but the release.
     */
    @Test
    void aFairGrantTravelsInTheShardedMessageAndTheWaiterRunsNoScriptToTakeIt() throws Exception {
        String name = Names.fresh("sharded-fair");
        LockKeys keys = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name);
        RedisServer owner = cluster.nodeFor(keys.lock());
        LockClient holder = open(() -> LockClient.create(redis, LockClientOptions.defaults()));
        LockClient waiting = open(() -> LockClient.create(redis, LockClientOptions.defaults()));
        long runs = FairGrantRun.scriptsUntilHeld(holder, waiting, name, owner);

        assertThat(runs)
                .as("scripts from the release until the waiter held the lock")
                .isEqualTo(1);
    }

    /**
     * {@code holder} takes the lock with a long lease, {@code waiting} waits for it in another thread; once
     * the waiter has marked itself waiting in Redis and {@code subscribed} holds, the holder releases, and
     * the waiter must get the lock well within the lease it would otherwise have slept through.
     */
    private void handOff(LockClient holder, LockClient waiting, String name, Supplier<Boolean> subscribed)
            throws Exception {
        String key = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).lock();
        RedisLock held = holder.getLock(name);
        held.lock(LONG_LEASE);
        OtherThread<Long> waiter =
                Contenders.takesAtAndReleases(() -> waiting.getLock(name), LONG_LEASE.multipliedBy(2));
        await().atMost(Waits.GRANTED)
                .until(() -> waiting.subscribedChannels() == 1
                        && cluster.nodeFor(key).query("HEXISTS", key, "~w").equals(":1")
                        && subscribed.get());

        long released = System.nanoTime();
        held.unlock();

        long acquired = waiter.get();
        assertThat(acquired).as("the waiter got the lock").isNotEqualTo(-1L);
        assertThat(Duration.ofNanos(acquired - released)).isLessThan(Waits.GRANTED);
    }

    /** A client opened while the deprecated {@code -Ddistlock.sharded-pubsub=false} is set: under AUTO it publishes plainly. */
    private static LockClient plainPublish(Supplier<LockClient> open) {
        System.setProperty("distlock.sharded-pubsub", "false");
        try {
            return open.get();
        } finally {
            System.clearProperty("distlock.sharded-pubsub");
        }
    }

    private LockClient open(Supplier<LockClient> open) {
        LockClient client = open.get();
        opened.add(client);
        return client;
    }

    private static long shardSubscribers(RedisServer node, String channel) {
        return ServerStats.subscribers(node, "SHARDNUMSUB", channel);
    }

    private Observer subscribe(RedisServer node, String channel, boolean sharded) {
        Observer o = new Observer(node, channel, sharded);
        opened.add(o);
        return o;
    }

    /** Messages on one channel of one node, as a plain Lettuce connection to that node receives them. */
    private static final class Observer implements AutoCloseable {
        final int port;
        final List<String> messages = new CopyOnWriteArrayList<>();
        private final RedisClient client;
        private final StatefulRedisPubSubConnection<String, String> connection;

        Observer(RedisServer node, String channel, boolean sharded) {
            this.port = node.port();
            this.client = RedisClient.create(RedisURI.create(node.uri()));
            this.connection = client.connectPubSub();
            connection.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String ch, String message) {
                    messages.add(message);
                }

                @Override
                public void smessage(String ch, String message) {
                    messages.add(message);
                }
            });
            if (sharded) {
                connection.sync().ssubscribe(channel);
            } else {
                connection.sync().subscribe(channel);
            }
        }

        /**
         * The messages before the marker the test published after the hand-off. A node passes messages on
         * in order (to its subscribers, and over its cluster-bus link to each other node), so a message of
         * the release would have arrived before it.
         */
        List<String> beforeMarker() {
            await().atMost(Waits.GRANTED).until(() -> messages.contains(MARKER));
            return messages.subList(0, messages.indexOf(MARKER));
        }

        @Override
        public void close() {
            connection.close();
            ClientShutdown.shutdown(client);
        }
    }
}
