package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Contenders;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RedLockNodes;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RedLock rounds ride out a majority of nodes that stops answering for less than the wait (issue 48,
 * item 1): the rounds go on until the wait's end, and a majority that stays silent for all of it ends
 * the wait with {@link LockUnavailableException} at its end.
 */
@Timeout(120)
@SlowTest
class RedLockOutageInsideWaitTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** Longer than several rounds, each bounded by a per-node timeout of at most 500 ms. */
    private static final Duration OUTAGE = Duration.ofSeconds(4);

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration SLACK = Duration.ofSeconds(5);

    private RedLockNodes nodes;

    @BeforeEach
    void startNodes() {
        nodes = new RedLockNodes(redis);
    }

    @AfterEach
    void closeClients() throws Exception {
        for (int i = 0; i < 3; i++) {
            if (nodes.server(i).isRunning()) {
                nodes.server(i).resume();
            }
        }
        nodes.close();
    }

    @Test
    void blockingAndAsyncWaitsGetTheLockAfterAMajorityWasPausedForPartOfTheWait() throws Exception {
        RedLockClient client = nodes.connect(3);
        RedisLock blocking = client.getLock(Names.fresh("redlock-ride"));
        RedisLock async = client.getLock(Names.fresh("redlock-ride-async"));
        assertThat(tryOnce(blocking)).isTrue(); // connected, scripts loaded
        blocking.unlock();
        nodes.server(0).pause();
        nodes.server(1).pause();

        OtherThread<Boolean> waiter = Contenders.takesAndReleases(() -> blocking, WAIT);
        CompletableFuture<Optional<LockHandle>> waiting =
                async.tryLockAsync(WAIT).toCompletableFuture();
        // The outage's length, not a condition to wait for: the waits must outlast it.
        Thread.sleep(OUTAGE.toMillis());
        assertThat(waiter.result)
                .as("the blocking wait goes on through the outage")
                .isNotDone();
        assertThat(waiting).as("the async wait goes on through the outage").isNotDone();
        nodes.server(0).resume();
        nodes.server(1).resume();
        long resumed = System.nanoTime();

        assertThat(waiter.result.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        Optional<LockHandle> handle = waiting.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(handle).isPresent();
        handle.get().unlock();
        assertThat(Duration.ofNanos(System.nanoTime() - resumed)).isLessThan(SLACK);
    }

    @Test
    void aMajoritySilentForTheWholeWaitEndsItAtItsEnd() {
        RedisLock lock = nodes.connect(3).getLock(Names.fresh("redlock-silent"));
        Duration wait = Duration.ofSeconds(3);
        nodes.server(0).stop();
        nodes.server(1).stop();

        long start = System.nanoTime();
        assertThatThrownBy(() -> lock.tryLock(wait))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("only 1 of 3 Redis nodes answered");

        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).isGreaterThanOrEqualTo(wait).isLessThan(wait.plus(SLACK));
        await().atMost(Duration.ofSeconds(5)).until(() -> !nodes.hasKey(2, lock.getKey()));
    }
}
