package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.HoldHistory;
import dev.distlock.core.testing.MixedCallerWorker;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thread-bound, async ({@code CompletionStage}) and reactive ({@code Mono}/{@code Flux}) callers in two
 * processes on the same lock names at once ({@link MixedCallerWorker}), a reentrant and a fair one, with
 * errors inside held work and cancellations while waiting and while holding mixed in. Every recorded hold
 * (token, start and end on the Redis clock) goes into one history per name, which must be exclusive with
 * growing tokens; every caller kind must have been granted in both processes, every grant released once,
 * and nothing but fencing counters left in Redis.
 */
@SlowTest
class MixedCallersAcrossProcessesTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final int PROCESSES = 2;
    private static final Duration RUN_TIME = Duration.ofSeconds(4);

    @TempDir
    Path dir;

    @Test
    void asyncReactiveAndThreadBoundCallersInTwoProcessesNeverOverlap() throws Exception {
        String reentrant = Names.fresh("mixed");
        String fair = Names.fresh("fair-mixed");
        List<Process> children = new ArrayList<>();
        Map<String, Long> totals = new HashMap<>();
        List<String> outputs = new ArrayList<>();
        try {
            for (int i = 0; i < PROCESSES; i++) {
                children.add(HoldHistory.startJvm(
                        MixedCallerWorker.class,
                        dir.resolve("child-" + i + ".out"),
                        redis.server().uri(),
                        reentrant + "," + fair,
                        Long.toString(RUN_TIME.toMillis()),
                        dir.resolve("holds-" + i + ".csv").toString()));
            }
            for (int i = 0; i < PROCESSES; i++) {
                Path out = dir.resolve("child-" + i + ".out");
                Process child = children.get(i);
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    assertThat(child.isAlive()).as("child alive: %s", read(out)).isTrue();
                    return read(out).contains("READY");
                });
            }
            for (Process child : children) {
                try (OutputStream stdin = child.getOutputStream()) {
                    stdin.write("GO\n".getBytes(StandardCharsets.UTF_8));
                }
            }
            for (int i = 0; i < PROCESSES; i++) {
                assertThat(children.get(i)
                                .waitFor(
                                        RUN_TIME.plus(MixedCallerWorker.EXTRA_TIME)
                                                .plusSeconds(60)
                                                .toSeconds(),
                                        TimeUnit.SECONDS))
                        .as("child %d ended", i)
                        .isTrue();
                String output = read(dir.resolve("child-" + i + ".out"));
                outputs.add(output);
                assertThat(children.get(i).exitValue())
                        .as("child %d: %s", i, output)
                        .isZero();
                Map<String, Long> counters = counters(output);
                // every caller kind granted, every way of leaving a hold or a wait taken, in each process
                for (String what : MixedCallerWorker.EVENTS) {
                    assertThat(counters.getOrDefault(what, 0L))
                            .as("%s happened in child %d: %s", what, i, output)
                            .isPositive();
                }
                counters.forEach((k, v) -> totals.merge(k, v, Long::sum));
            }
        } finally {
            children.forEach(Process::destroyForcibly);
        }
        System.out.println("counters of both processes: " + totals);

        Map<String, List<HoldHistory.Hold>> holds = new HashMap<>();
        for (int i = 0; i < PROCESSES; i++) {
            for (String line : Files.readAllLines(dir.resolve("holds-" + i + ".csv"))) {
                if (!line.isBlank()) {
                    String[] f = line.split(",");
                    holds.computeIfAbsent(f[0], n -> new ArrayList<>())
                            .add(new HoldHistory.Hold(
                                    Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]), f[4]));
                }
            }
        }
        assertThat(holds).containsOnlyKeys(reentrant, fair);
        holds.values().forEach(HoldHistory::assertExclusiveWithGrowingTokens);
        assertThat(holds.values().stream().mapToInt(List::size).sum())
                .as("every recorded hold is in the history")
                .isEqualTo(totals.get("thread.holds")
                        + totals.get("async.holds")
                        + totals.get("reactive.holds")
                        + totals.get("mono.holds"));

        assertThat(HoldHistory.leftKeys(redis.server()))
                .as("keys left in Redis besides fencing counters")
                .isEmpty();
    }

    /** The {@code key=value} counters of the child's DONE line. */
    private static Map<String, Long> counters(String output) {
        String done = output.lines()
                .filter(l -> l.startsWith("DONE"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no DONE line:\n" + output));
        Map<String, Long> counters = new HashMap<>();
        Arrays.stream(done.split(" "))
                .skip(1)
                .map(kv -> kv.split("="))
                .forEach(kv -> counters.put(kv[0], Long.parseLong(kv[1])));
        return counters;
    }

    private static String read(Path file) throws IOException {
        return Files.exists(file) ? Files.readString(file) : "";
    }
}
