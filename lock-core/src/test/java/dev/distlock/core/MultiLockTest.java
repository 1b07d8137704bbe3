package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.answered;
import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.testing.MultiLockWorker;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

@BehaviourTest
class MultiLockTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private LockClient client;
    private LockClient other;

    @BeforeEach
    void connect() {
        client = LockClient.create(RedisURI.create(redis.server().uri()));
        other = LockClient.create(RedisURI.create(redis.server().uri()));
    }

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    void takesEveryLockInSortedOrderAndReleasesThemAll() throws Exception {
        String a = Names.fresh("a");
        String b = Names.fresh("b");
        RedisMultiLock multi = client.getMultiLock(b, a, b);
        assertThat(multi.keys()).containsExactly(a, b);
        assertThat(multi.tryLock(Waits.GRANTED)).isTrue();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        assertThat(other.getLock(a).isLocked()).isTrue();
        assertThat(other.getLock(b).isLocked()).isTrue();
        assertThat(multi.fencingTokens()).containsOnlyKeys(a, b);
        assertThat(multi.currentFencingToken())
                .isEqualTo(multi.fencingTokens().values().stream()
                        .max(Long::compare)
                        .orElseThrow());
        multi.unlock();
        assertThat(other.getLock(a).isLocked()).isFalse();
        assertThat(other.getLock(b).isLocked()).isFalse();
    }

    /**
     * lockAsync() waits without a limit; cancelling it while it waits for its second name must cancel that wait
     * too. Before, the cancel stopped at a stage mapped from the lock's future: the first name was released,
     * but the wait for the second went on and, once its holder released it, took it for nobody, the watchdog
     * renewing it for as long as the client lived.
     */
    @Test
    void cancellingAnEndlessLockAsyncWhileItWaitsLeavesNoNameTaken() throws Exception {
        String a = Names.fresh("a");
        String b = Names.fresh("b");
        LockHandle holdingB = other.getLock(b).lockAsync().toCompletableFuture().get(5, TimeUnit.SECONDS);

        java.util.concurrent.CompletableFuture<LockHandle> waiting =
                client.getMultiLock(a, b).lockAsync().toCompletableFuture();
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> other.getLock(a).isLocked()); // took a, waits for b
        waiting.cancel(true);
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .until(() -> !other.getLock(a).isLocked());
        holdingB.unlock();

        // a wait still going would take b within a round trip or two of its release
        org.awaitility.Awaitility.await()
                .during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !other.getLock(b).isLocked());
        assertThat(tryOnce(other.getLock(b))).as("b is free for others").isTrue();
        other.getLock(b).unlock();
    }

    /**
     * A tryLockAsync ended by the caller's orTimeout (not a cancel) while it waits for its second name: the
     * first is given back and the wait for the second stops. It used to stop only on a cancel, keeping the
     * first name, watchdog-renewed for nobody, and waiting on for the second for its whole 20 s.
     */
    @Test
    void aTryLockAsyncEndedByOrTimeoutGivesBackWhatItTookAndStopsWaiting() throws Exception {
        String a = Names.fresh("a");
        String b = Names.fresh("b");
        LockHandle holdingB = other.getLock(b).lockAsync().toCompletableFuture().get(5, TimeUnit.SECONDS);

        java.util.concurrent.CompletableFuture<?> trying = client.getMultiLock(a, b)
                .tryLockAsync(Duration.ofSeconds(20))
                .toCompletableFuture()
                .orTimeout(500, TimeUnit.MILLISECONDS);
        assertThat(trying).failsWithin(Duration.ofSeconds(5));
        org.awaitility.Awaitility.await("a given back")
                .atMost(Duration.ofSeconds(3))
                .until(() -> !other.getLock(a).isLocked());
        holdingB.unlock();

        // a wait still going would take b within a round trip or two of its release
        org.awaitility.Awaitility.await("b left free")
                .during(Duration.ofSeconds(1))
                .atMost(Duration.ofSeconds(5))
                .until(() -> !other.getLock(b).isLocked());
        assertThat(client.activeHolds()).isZero();
    }

    @Test
    void aHandleKeepsEveryKeysTokenInLockingOrder() throws Exception {
        String a = Names.fresh("a");
        String b = Names.fresh("b");
        LockHandle handle = client.getMultiLock(b, a)
                .tryLockAsync(Waits.GRANTED)
                .toCompletableFuture()
                .get(5, TimeUnit.SECONDS)
                .orElseThrow();
        try {
            assertThat(handle.fencingTokens()).containsOnlyKeys(a, b);
            assertThat(handle.fencingTokens().keySet()).containsExactly(a, b);
            assertThat(handle.fencingToken())
                    .isEqualTo(handle.fencingTokens().values().stream()
                            .max(Long::compare)
                            .orElseThrow());
        } finally {
            handle.unlock();
        }
        LockHandle single = answered(() -> client.getLock(a)
                        .tryLockAsync(Duration.ZERO)
                        .toCompletableFuture()
                        .get(5, TimeUnit.SECONDS))
                .orElseThrow();
        assertThat(single.fencingTokens()).containsExactly(java.util.Map.entry(a, single.fencingToken()));
        single.unlock();
    }

    @Test
    void aMultiLockOverGivenLocksTakesThemInKeyOrderFromAnySource() throws Exception {
        String a = Names.fresh("a");
        String b = Names.fresh("b");
        // locks of two clients, given in reverse order
        RedisMultiLock multi = RedisMultiLock.of(List.of(other.getLock(b), client.getLock(a)));
        assertThat(multi.keys()).containsExactly(a, b);
        assertThat(multi.tryLock(Waits.GRANTED)).isTrue();
        assertThat(multi.fencingTokens()).containsOnlyKeys(a, b);
        multi.unlock();
        assertThat(client.getLock(b).isLocked()).isFalse();

        assertThatThrownBy(() -> RedisMultiLock.of(List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one lock");
        assertThatThrownBy(() -> RedisMultiLock.of(List.of(client.getLock(a), other.getLock(a))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("each key once");
    }

    @Test
    void allOrNothingWhenOneNameIsHeldElsewhere() throws Exception {
        String a = Names.fresh("a");
        String b = Names.fresh("b");
        String c = Names.fresh("c");
        RedisLock held = other.getLock(b);
        OtherThread.call(() -> {
            held.lock();
            return null;
        });
        long start = System.nanoTime();
        RedisMultiLock multi = client.getMultiLock(a, b, c);
        assertThat(multi.tryLock(Waits.RUNS_OUT)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        // the name taken before the busy one was given back, the one after it never taken
        assertThat(other.getLock(a).isLocked()).isFalse();
        assertThat(other.getLock(c).isLocked()).isFalse();
        assertThat(multi.isHeldByCurrentThread()).isFalse();
        assertThat(tryOnce(multi)).isFalse();
        assertThat(other.getLock(a).isLocked()).isFalse();
    }

    @Test
    void unlockByAThreadThatDoesNotHoldItFails() throws Exception {
        RedisMultiLock multi = client.getMultiLock(Names.fresh("x"), Names.fresh("y"));
        multi.lock();
        try {
            assertThat(OtherThread.failure(() -> {
                        multi.unlock();
                        return null;
                    }))
                    .isInstanceOf(IllegalMonitorStateException.class);
        } finally {
            multi.unlock();
        }
    }

    @Test
    void rejectsAnEmptyOrBlankNameList() {
        assertThatThrownBy(() -> client.getMultiLock())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one");
        assertThatThrownBy(() -> client.getMultiLock("a", " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("blank");
    }

    @TempDir
    Path dir;

    @Test
    @SlowTest
    void twoProcessesLockingCrossedOrdersInALoopNeverDeadlock() throws Exception {
        String a = Names.fresh("a");
        String b = Names.fresh("b");
        String counter = Names.fresh("counter");
        int iterations = 200;
        List<Process> children = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        try {
            for (String[] order : new String[][] {{a, b}, {b, a}}) {
                Path output = dir.resolve("child-" + children.size() + ".out");
                outputs.add(output);
                List<String> command = new ArrayList<>(List.of(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                        MultiLockWorker.class.getName(),
                        redis.server().uri(),
                        counter,
                        Integer.toString(iterations)));
                command.addAll(List.of(order));
                children.add(new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(output.toFile())
                        .start());
            }
            for (int i = 0; i < children.size(); i++) {
                assertThat(children.get(i).waitFor(90, TimeUnit.SECONDS))
                        .as("child %d finished (no deadlock)", i)
                        .isTrue();
                assertThat(children.get(i).exitValue())
                        .as("child %d exit code; output:%n%s", i, Files.readString(outputs.get(i)))
                        .isZero();
            }
            try (RedisProbe probe = RedisProbe.connect(redis.server())) {
                assertThat(probe.sync().get(counter))
                        .as("every increment under the multi-lock kept")
                        .isEqualTo(Integer.toString(2 * iterations));
            }
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }
}
