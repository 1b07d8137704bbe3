package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.testing.LockOwner;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.core.testing.ReplyLoss;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An application's Lettuce client whose command time-out (200 ms) is shorter than a slow reply: the
 * engine treats the time-out as transient and sends the script again while the first run's reply is
 * still on its way (README, "Connection faults"). Redis then runs the same acquire or release
 * several times; it must count once.
 */
@BehaviourTest
class LettuceTimeoutRetryTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final RecordingListener events = new RecordingListener();
    private FaultRelay relay;
    private RedisClient lettuce;
    private LockClient client;
    private RedisProbe probe;
    private RedisCommands<String, String> observer;
    private LockOwner owner;

    @BeforeEach
    void connect() {
        relay = FaultRelay.to(redis.server());
        lettuce = RedisClient.create(RedisURI.Builder.redis(relay.host(), relay.port())
                .withTimeout(Duration.ofMillis(200))
                .build());
        client = LockClient.create(
                lettuce, LockClientOptions.builder().listener(events).build());
        probe = RedisProbe.connect(redis.server());
        observer = probe.sync();
        owner = new LockOwner("lock-owner");
        ReplyLoss.loadScripts(client, owner);
    }

    @AfterEach
    void close() {
        owner.close();
        client.close();
        ClientShutdown.shutdown(lettuce);
        relay.close();
        probe.close();
    }

    @Test
    void acquireSentAgainAfterALettuceTimeOutCountsOnce() throws Exception {
        String name = Names.fresh("timed-out-grant");
        RedisLock lock = client.getLock(name);
        String key = key(name);
        String ownerId = owner.ownerId(client);

        Future<Void> locking = runTwiceInRedis(() -> "1".equals(observer.hget(key, ownerId)), () -> {
            lock.lock();
            return null;
        });
        locking.get(30, TimeUnit.SECONDS);
        assertThat(owner.run(lock::getHoldCount)).isEqualTo(1);
        assertThat(observer.hget(key, ownerId))
                .as("count in Redis after several runs of one acquire")
                .isEqualTo("1");
        owner.act(lock::unlock);
        assertThat(observer.exists(key)).as("one unlock() frees it").isZero();
    }

    @Test
    void releaseSentAgainAfterALettuceTimeOutSucceedsWithoutAFalseLoss() throws Exception {
        String name = Names.fresh("timed-out-release");
        RedisLock lock = client.getLock(name);
        String key = key(name);
        owner.act(() -> lock.lock());

        Future<Void> unlocking = runTwiceInRedis(() -> observer.exists(key) == 0, () -> {
            lock.unlock();
            return null;
        });
        unlocking.get(30, TimeUnit.SECONDS); // no exception
        assertThat(owner.run(lock::getHoldCount)).isZero();
        assertThat(observer.exists(key)).isZero();
        assertThat(events.leaseLosses(name)).as("no false loss").isEmpty();
    }

    /**
     * Holds replies until Redis ran {@code step}'s command and, after Lettuce's time-out, ran it
     * again (a second reply is held), then lets every reply through.
     */
    private <T> Future<T> runTwiceInRedis(Callable<Boolean> ranInRedis, Callable<T> step) {
        relay.holdReplies();
        Future<T> running = owner.submit(step);
        await("Redis ran it once")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> ranInRedis.call() && relay.pendingReplyBytes() > 0);
        long firstReply = relay.pendingReplyBytes();
        await("Redis ran it again after Lettuce timed out")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> relay.pendingReplyBytes() > firstReply);
        relay.releaseReplies();
        return running;
    }

    private static String key(String name) {
        return LockClientOptions.DEFAULT_KEY_PREFIX + "{" + name + "}";
    }
}
