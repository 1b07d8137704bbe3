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
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * RedLock rounds ride out a majority of nodes that stops answering for less than the wait (issue 48,
 * item 1): the rounds go on until the wait's end, and a majority that stays silent for all of it ends
 * the wait with {@link LockUnavailableException} at its end. A {@code lock()} without a wait limit rides
 * out silence for one operation timeout, as a LockClient's does (RedLockTest: the end of it).
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
        ridesOutAMajorityPausedForTheOutage(
                nodes.connect(3),
                "redlock-ride",
                blocking -> Contenders.takesAndReleases(() -> blocking, WAIT),
                async -> async.tryLockAsync(WAIT).toCompletableFuture());
    }

    @Test
    void lockWithoutAWaitLimitRidesOutAMajorityPausedForLessThanTheOperationTimeout() throws Exception {
        // lock() waits for ever, but for silence only one operation timeout: here much longer than the outage
        ridesOutAMajorityPausedForTheOutage(
                nodes.connect(
                        3, LockClientOptions.builder().operationTimeout(WAIT).build()),
                "redlock-ride-lock",
                blocking -> OtherThread.start(() -> {
                    blocking.lock();
                    blocking.unlock();
                    return true;
                }),
                async -> async.lockAsync().toCompletableFuture().thenApply(Optional::of));
    }

    /**
     * A blocking and an async wait of {@code client}, started by {@code blockingWait} and {@code asyncWait}
     * while a majority of nodes is paused for {@link #OUTAGE}: both go on through it and get the lock once it
     * ends.
     */
    private void ridesOutAMajorityPausedForTheOutage(
            RedLockClient client,
            String name,
            Function<RedisLock, OtherThread<Boolean>> blockingWait,
            Function<RedisLock, CompletableFuture<Optional<LockHandle>>> asyncWait)
            throws Exception {
        RedisLock blocking = client.getLock(Names.fresh(name));
        RedisLock async = client.getLock(Names.fresh(name + "-async"));
        assertThat(tryOnce(blocking)).isTrue(); // connected, scripts loaded
        blocking.unlock();
        nodes.server(0).pause();
        nodes.server(1).pause();

        OtherThread<Boolean> waiter = blockingWait.apply(blocking);
        CompletableFuture<Optional<LockHandle>> waiting = asyncWait.apply(async);
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
