package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.Contenders;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.ServerStats;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link PubSubMode} on a standalone Redis 7: AUTO and PLAIN wake waiters by PUBLISH on a SUBSCRIBE, SHARDED
 * by SPUBLISH on an SSUBSCRIBE (Redis 7 serves sharded pub/sub off Cluster too), and each hands a contended
 * lock off well within the lease the waiter would otherwise sleep through. What the server ran is read from
 * its own counters (PUBSUB NUMSUB and SHARDNUMSUB, INFO commandstats, scripts' commands included). On
 * Redis Cluster: ClusterShardedPubSubTest; the choice itself, old servers included: PubSubChoiceTest.
 */
@BehaviourTest
class PubSubModeTest {

    /** The holder's lease: a waiter that missed the wake-up would sleep about this long. */
    private static final Duration LONG_LEASE = Duration.ofMinutes(2);

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @ParameterizedTest
    @EnumSource(PubSubMode.class)
    void aReleaseWakesItsWaiterOnTheChannelKindTheModeChooses(PubSubMode mode) throws Exception {
        RedisServer server = redis.server();
        boolean sharded = mode == PubSubMode.SHARDED;
        String name = Names.fresh("pub-sub-" + mode);
        LockKeys keys = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name);
        LockClientOptions options = LockClientOptions.builder().pubSub(mode).build();
        try (LockClient holder = LockClient.create(RedisURI.create(server.uri()), options);
                LockClient waiting = LockClient.create(RedisURI.create(server.uri()), options)) {
            RedisLock held = holder.getLock(name);
            held.lock(LONG_LEASE);
            OtherThread<Long> waiter =
                    Contenders.takesAtAndReleases(() -> waiting.getLock(name), LONG_LEASE.multipliedBy(2));
            await().atMost(Waits.GRANTED)
                    .until(() -> server.query("HEXISTS", keys.lock(), "~w").equals(":1")
                            && ServerStats.subscribers(server, sharded ? "SHARDNUMSUB" : "NUMSUB", keys.channel())
                                    == 1);
            assertThat(ServerStats.subscribers(server, sharded ? "NUMSUB" : "SHARDNUMSUB", keys.channel()))
                    .as("subscribers of the other kind")
                    .isZero();
            long published = ServerStats.calls(server, "publish");
            long spublished = ServerStats.calls(server, "spublish");

            long released = System.nanoTime();
            held.unlock();

            long acquired = waiter.get();
            assertThat(acquired).as("the waiter got the lock").isNotEqualTo(-1L);
            assertThat(Duration.ofNanos(acquired - released)).isLessThan(Waits.GRANTED);
            assertThat(ServerStats.calls(server, sharded ? "spublish" : "publish"))
                    .as("the release's wake-up")
                    .isGreaterThan(sharded ? spublished : published);
            assertThat(ServerStats.calls(server, sharded ? "publish" : "spublish"))
                    .as("wake-ups of the other kind")
                    .isEqualTo(sharded ? published : spublished);
        }
    }

    @Test
    void theOptionIsAutoUnlessSetAndRefusesNull() {
        assertThat(LockClientOptions.defaults().pubSub()).isEqualTo(PubSubMode.AUTO);
        assertThat(LockClientOptions.builder().pubSub(PubSubMode.PLAIN).build().pubSub())
                .isEqualTo(PubSubMode.PLAIN);
        assertThatThrownBy(() -> LockClientOptions.builder().pubSub(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("pubSub must not be null: use PubSubMode.AUTO for the default");
    }

    @Test
    void shardedIsRefusedAtStartOnARedisOlderThan7NamingTheFixWhileAutoStartsThere() throws InterruptedException {
        RedisServer server = redis.server();
        try (FaultRelay relay = FaultRelay.to(server)) {
            relay.poseAsRedis6(server);
            LockClientOptions sharded =
                    LockClientOptions.builder().pubSub(PubSubMode.SHARDED).build();
            assertThatThrownBy(() -> LockClient.create(RedisURI.create(relay.uri()), sharded))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the server runs Redis 6.")
                    .hasMessageContaining("use PubSubMode.AUTO")
                    .hasMessageContaining("distlock.pub-sub=auto or plain in Spring Boot");
            String name = Names.fresh("pub-sub-old-redis");
            try (LockClient client = LockClient.create(RedisURI.create(relay.uri()), LockClientOptions.defaults())) {
                RedisLock lock = client.getLock(name);
                assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
                lock.unlock();
            }
        }
    }
}
