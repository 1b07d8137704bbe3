package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The semaphore contract on one standalone Redis, plus what is seen in Redis itself: the arrival order a
 * fair semaphore keeps, and no key left behind but the fencing counter and the number of permits.
 */
class SemaphoreTest extends SemaphoreContract {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Override
    LockClient open(LockClientOptions options) {
        return LockClient.create(RedisURI.create(redis.server().uri()), options);
    }

    @Test
    void nothingButTheFenceAndTheNumberOfPermitsIsLeftAfterUse() throws Exception {
        RedisSemaphore semaphore = client.getSemaphore(name, 2);
        LockHandle one = semaphore.acquire();
        LockHandle two = otherClient.getSemaphore(name, 2).acquire();
        one.unlock();
        two.unlock();

        assertThat(semaphoreKeys()).isEmpty();
        assertThat(redis.server()
                        .query(
                                "EXISTS",
                                LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name)
                                        .permits()))
                .isEqualTo(":1");
    }

    @Test
    void aFairSemaphoreServesWaitersInTheOrderTheyAsked() throws Exception {
        RedisSemaphore fair = client.getFairSemaphore(name, 2);
        LockHandle all = fair.acquire(2);
        OtherThread<LockHandle> big =
                OtherThread.start(() -> otherClient.getFairSemaphore(name, 2).acquire(2));
        String waiters = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).waiters();
        await().atMost(Waits.GRANTED)
                .until(() -> !redis.server().query("HKEYS", waiters).isBlank());
        OtherThread<LockHandle> small =
                OtherThread.start(() -> otherClient.getFairSemaphore(name, 2).acquire(1));
        await().atMost(Waits.GRANTED)
                .until(() -> redis.server().query("HKEYS", waiters).split("\n").length == 4);

        all.unlock();

        LockHandle bigGrant = big.get();
        assertThat(small.result.isDone())
                .as("the later, smaller request waits behind the earlier one")
                .isFalse();
        bigGrant.unlock();
        LockHandle smallGrant = small.get();
        assertThat(smallGrant.fencingToken()).isGreaterThan(bigGrant.fencingToken());
        smallGrant.unlock();
    }

    /** The semaphore's keys in Redis apart from its fencing counter, its number of permits and short-lived notes. */
    private List<String> semaphoreKeys() {
        String keys = redis.server().query("KEYS", LockClientOptions.DEFAULT_KEY_PREFIX + "{" + name + "}*");
        return java.util.Arrays.stream(keys.split("\n"))
                .filter(k -> !k.isBlank())
                .filter(k -> !k.endsWith(":fence") && !k.endsWith(":permits") && !k.contains(":released:"))
                .toList();
    }
}
