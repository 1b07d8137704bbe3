package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.ChurnWorker;
import dev.distlock.core.testing.HoldHistory;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Randomized soak: three processes of four threads churn re-entrant locks on three names (see
 * {@link ChurnWorker}) while the test kills every normal client connection in Redis every 100 ms
 * ({@code CLIENT KILL TYPE normal}, and the pub/sub ones every 500 ms), so that commands are lost
 * and re-sent all the time. Then the hold history is checked: no two holds of a name overlapped on
 * the Redis clock, tokens grew with time, every hold count was exact locally and in Redis (checked by
 * the workers after each step), no loss was reported, and no lock is left in Redis.
 *
 * <p>A 5-second run is part of {@code ./mvnw verify} (the full lane); the long run, beyond the 10-minute
 * timeout of {@link SlowTest}, is:
 * <pre>
 * ./mvnw -B -pl lock-core -am test -Dtest=ReentrantChurnSoakTest -Dsurefire.failIfNoSpecifiedTests=false -Ddistlock.soak.seconds=600 -Djunit.jupiter.execution.timeout.mode=disabled
 * </pre>
 */
@SlowTest
class ReentrantChurnSoakTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final int PROCESSES = 3;
    private static final int THREADS = 4;

    @TempDir
    Path dir;

    @Test
    void reentrantChurnWhileConnectionsAreKilledEvery100MsKeepsHoldsExclusiveExactAndNothingLeft() throws Exception {
        long seconds = Long.getLong("distlock.soak.seconds", 5);
        RedisServer server = redis.server();
        List<String> names = List.of(Names.fresh("churn-a"), Names.fresh("churn-b"), Names.fresh("churn-c"));
        List<Process> children = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        AtomicBoolean killing = new AtomicBoolean(true);
        AtomicLong killed = new AtomicLong();
        Thread killer = new Thread(() -> kill(server, killing, killed), "connection-killer");
        try {
            for (int i = 0; i < PROCESSES; i++) {
                Path file = dir.resolve("holds-" + i + ".csv");
                files.add(file);
                children.add(HoldHistory.startJvm(
                        ChurnWorker.class,
                        output(i),
                        server.uri(),
                        String.join(",", names),
                        Integer.toString(THREADS),
                        Long.toString(seconds * 1000),
                        file.toString(),
                        Long.toString(System.nanoTime() + i)));
            }
            for (int i = 0; i < PROCESSES; i++) {
                int child = i;
                await("child " + i + " ready")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> Files.readString(output(child)).contains("READY"));
            }
            killer.start();
            for (Process child : children) {
                send(child, "GO\n");
            }
            long doneBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds + 90);
            for (int i = 0; i < PROCESSES; i++) {
                int child = i;
                try {
                    await("child " + i + " done")
                            .atMost(Duration.ofNanos(Math.max(1, doneBy - System.nanoTime())))
                            .pollInterval(Duration.ofMillis(200))
                            .until(() -> Files.readString(output(child)).contains("DONE")
                                    || !children.get(child).isAlive());
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    throw new AssertionError(
                            "child " + i + " did not finish its " + seconds + " s churn within 90 s more: a call hangs."
                                    + " Its output and threads:\n" + Files.readString(output(i))
                                    + threadDump(children.get(i)),
                            e);
                }
            }
            killing.set(false);
            killer.join(10_000);

            for (int i = 0; i < PROCESSES; i++) {
                assertThat(Files.readString(output(i)))
                        .as("child %d checked every step", i)
                        .contains("failures=0");
            }

            // Nothing left: a release or give-back that Redis did not confirm in time is retried in the
            // background (the children are still alive), within operationTimeout (5 s) apart from slow runs.
            try {
                await("no lock left in Redis")
                        .atMost(Duration.ofSeconds(15))
                        .until(() -> names.stream()
                                .noneMatch(n -> "1"
                                        .equals(server.command("EXISTS", key(n)).substring(1))));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                StringBuilder left = new StringBuilder();
                for (String n : names) {
                    left.append(key(n))
                            .append(" = ")
                            .append(server.query("HGETALL", key(n)).replace('\n', ' '))
                            .append(", PTTL ")
                            .append(server.command("PTTL", key(n)))
                            .append('\n');
                }
                for (int i = 0; i < PROCESSES; i++) {
                    left.append("child ")
                            .append(i)
                            .append(": ")
                            .append(Files.readString(output(i)))
                            .append('\n');
                }
                throw new AssertionError("a lock stayed in Redis 15 s after every unlock returned:\n" + left, e);
            }
            for (Process child : children) {
                child.getOutputStream().close();
            }
            for (int i = 0; i < PROCESSES; i++) {
                assertThat(children.get(i).waitFor(60, TimeUnit.SECONDS))
                        .as("child %d ended", i)
                        .isTrue();
                assertThat(children.get(i).exitValue())
                        .as("child %d: %s", i, Files.readString(output(i)))
                        .isZero();
            }
        } finally {
            killing.set(false);
            children.forEach(Process::destroyForcibly);
        }
        assertThat(killed.get()).as("connections killed during the run").isPositive();
        assertThat(HoldHistory.leftKeys(server))
                .as("keys left in Redis beyond fencing counters and release notes")
                .isEmpty();

        Map<String, List<HoldHistory.Hold>> byName = new java.util.HashMap<>();
        for (Path file : files) {
            for (String line : Files.readAllLines(file)) {
                if (!line.isBlank()) { // name,token,start,end,owner
                    String[] f = line.split(",");
                    byName.computeIfAbsent(f[0], n -> new ArrayList<>())
                            .add(new HoldHistory.Hold(
                                    Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), f[4]));
                }
            }
        }
        List<HoldHistory.Hold> holds =
                byName.values().stream().flatMap(List::stream).toList();
        assertThat(holds.stream().map(h -> h.owner().split(":")[0]).distinct())
                .as("every process held locks")
                .hasSize(PROCESSES);
        byName.values().forEach(HoldHistory::assertExclusiveWithGrowingTokens);
        System.out.printf("soak: %d s, %d holds, %d connections killed%n", seconds, holds.size(), killed.get());
        for (int i = 0; i < PROCESSES; i++) {
            Files.readAllLines(output(i)).stream()
                    .filter(l -> l.startsWith("DONE"))
                    .forEach(l -> System.out.println("soak: " + l));
        }
    }

    /** The child's threads (jcmd Thread.print), to show where a hung call waits. */
    private static String threadDump(Process child) {
        try {
            String jcmdPath =
                    Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
            Process jcmd = new ProcessBuilder(jcmdPath, Long.toString(child.pid()), "Thread.print")
                    .redirectErrorStream(true)
                    .start();
            String dump = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            jcmd.waitFor(30, TimeUnit.SECONDS);
            return dump;
        } catch (IOException e) {
            return "(no thread dump: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(no thread dump: interrupted)";
        }
    }

    private Path output(int child) {
        return dir.resolve("child-" + child + ".out");
    }

    /** Kills every normal connection every 100 ms, and every pub/sub connection every fifth time. */
    private static void kill(RedisServer server, AtomicBoolean killing, AtomicLong killed) {
        for (int round = 0; killing.get(); round++) {
            killed.addAndGet(count(server.command("CLIENT", "KILL", "TYPE", "normal")));
            if (round % 5 == 4) {
                killed.addAndGet(count(server.command("CLIENT", "KILL", "TYPE", "pubsub")));
            }
            try {
                Thread.sleep(100); // the fault's own rhythm, not a wait for a condition
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static long count(String reply) {
        return reply.startsWith(":") ? Long.parseLong(reply.substring(1)) : 0;
    }

    private static void send(Process child, String line) throws IOException {
        OutputStream in = child.getOutputStream();
        in.write(line.getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    private static String key(String name) {
        return LockClientOptions.DEFAULT_KEY_PREFIX + "{" + name + "}";
    }
}
