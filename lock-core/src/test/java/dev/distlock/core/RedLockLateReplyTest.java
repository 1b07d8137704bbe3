package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A RedLock round that a node answers too late: the round gives up on that node after the per-node
 * timeout, fails for want of a majority and releases on every node, the slow one included. That node's
 * acquire must not land after its release. Here the slow node's Redis has lost its script cache but
 * for the release (as after a restart, some scripts already run again): the acquire's EVALSHA is
 * refused (NOSCRIPT), and sent again as EVAL when that answer comes, which would be after the release,
 * leaving the node locked for nobody for the whole lease.
 */
@BehaviourTest
class RedLockLateReplyTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final List<RedisServer> servers = new ArrayList<>();
    private final List<FaultRelay> relays = new ArrayList<>();
    private final List<LockClient> nodes = new ArrayList<>();
    private RedLockClient redLock;

    @BeforeEach
    void setUp() {
        servers.add(redis.server());
        servers.add(redis.startAnother());
        servers.add(redis.startAnother());
        nodes.add(LockClient.create(RedisURI.create(servers.get(0).uri())));
        for (RedisServer server : servers.subList(1, 3)) {
            FaultRelay relay = FaultRelay.to(server);
            relays.add(relay);
            nodes.add(LockClient.create(RedisURI.create(relay.uri())));
        }
        redLock = RedLockClient.of(nodes, LockClientOptions.defaults());
    }

    @AfterEach
    void tearDown() {
        redLock.close();
        nodes.forEach(LockClient::close);
        relays.forEach(FaultRelay::close);
    }

    @Test
    void anAcquireAnsweredAfterTheRoundGaveUpOnItNeverLandsAfterItsRelease() throws Exception {
        String name = Names.fresh("redlock-late");
        // The third node: every script cached but the acquire.
        RedisClient probeClient = RedisClient.create(servers.get(2).uri());
        try (StatefulRedisConnection<String, String> probe = probeClient.connect()) {
            probe.sync().scriptFlush();
            ScriptRunnerTest.cacheScripts(probe.sync(), script -> script != LockScript.ACQUIRE);
            // Two of three nodes answer nothing in time: the round fails and releases everywhere.
            relays.forEach(FaultRelay::holdReplies);

            assertThatThrownBy(() -> redLock.getLock(name).tryLock(Duration.ZERO))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("only 1 of 3 Redis nodes answered");
            relays.forEach(FaultRelay::releaseReplies);

            String key = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).lock();
            await("the slow node left unlocked")
                    .during(Duration.ofMillis(500))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> probe.sync().exists(key) == 0);
        } finally {
            ClientShutdown.shutdown(probeClient); // bounded, unlike RedisClient.close()
        }
    }
}
