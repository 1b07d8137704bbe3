package dev.distlock.core.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link RedisFence} on a real Redis: a stale token's write is refused, a fresh one's accepted. */
class RedisFenceTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    static RedisClient client;
    static StatefulRedisConnection<String, String> connection;
    static LockClient instanceA;
    static LockClient instanceB;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(RedisURI.create(redis.server().uri()));
        connection = client.connect();
        instanceA = LockClient.create(RedisURI.create(redis.server().uri()));
        instanceB = LockClient.create(RedisURI.create(redis.server().uri()));
    }

    @AfterAll
    static void close() {
        instanceA.close();
        instanceB.close();
        connection.close();
        ClientShutdown.shutdown(client);
    }

    @Test
    void aPausedHoldersLateWriteIsRefusedAndTheNewHoldersKept() throws InterruptedException {
        RedisFence fence = new RedisFence(connection.sync());
        RedisLock lockA = instanceA.getLock("stock:sku-1");
        assertThat(lockA.tryLock(Waits.GRANTED)).isTrue();
        long t1 = lockA.currentFencingToken();
        assertThat(instanceB.getLock("stock:sku-1").forceUnlock()).isTrue(); // A's lease is lost while it pauses
        RedisLock lockB = instanceB.getLock("stock:sku-1");
        assertThat(lockB.tryLock(Waits.GRANTED)).isTrue();
        long t2 = lockB.currentFencingToken();
        fence.set("stock:sku-1", "7", t2);
        lockB.unlock();

        assertThatThrownBy(() -> fence.set("stock:sku-1", "99", t1))
                .isInstanceOf(FencedOffException.class)
                .hasMessageContaining("stock:sku-1")
                .hasMessageContaining(Long.toString(t2));
        assertThat(connection.sync().get("stock:sku-1")).isEqualTo("7");
        assertThat(connection.sync().get(RedisFence.fenceKey("stock:sku-1"))).isEqualTo(Long.toString(t2));
    }

    @Test
    void theSameWriteRunTwiceIsAcceptedTwice() {
        RedisFence fence = new RedisFence(connection.sync());
        fence.set("report:1", "a", 100);
        fence.set("report:1", "a", 100);
        assertThat(connection.sync().get("report:1")).isEqualTo("a");
        fence.set("report:1", "b", 101);
        assertThatThrownBy(() -> fence.set("report:1", "c", 100)).isInstanceOf(FencedOffException.class);
        assertThat(connection.sync().get("report:1")).isEqualTo("b");
    }

    @Test
    void runsAfterRedisForgotItsScripts() {
        RedisFence fence = new RedisFence(connection.sync());
        connection.sync().scriptFlush();
        fence.set("flushed:1", "x", 5);
        assertThat(connection.sync().get("flushed:1")).isEqualTo("x");
    }

    @Test
    void aTtlExpiresTheValueAndItsFenceTogether() {
        RedisFence fence = new RedisFence(connection.sync());
        fence.set("ttl:1", "x", 5, Duration.ofMinutes(5));
        assertThat(connection.sync().pttl("ttl:1")).isPositive();
        assertThat(connection.sync().pttl(RedisFence.fenceKey("ttl:1"))).isPositive();
        assertThatThrownBy(() -> fence.set("ttl:1", "x", 5, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative");
    }

    @Test
    void theFenceSharesItsValuesClusterSlot() {
        for (String key : new String[] {"stock:sku-1", "{orders}:42", "a{b}c"}) {
            assertThat(SlotHash.getSlot(RedisFence.fenceKey(key))).as(key).isEqualTo(SlotHash.getSlot(key));
        }
        for (String key : new String[] {"x{}y", "}{", "a}b", ""}) {
            assertThatThrownBy(() -> RedisFence.fenceKey(key))
                    .as(key)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("hash tag");
        }
    }
}
