package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.testing.HoldHistory;
import dev.distlock.core.testing.HoldRecorder;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records every hold of one lock by several processes (token, start and end on the Redis clock) and
 * proves that no two holds overlapped and that tokens grow with time. A short run is part of the
 * build; the long one is the same test with {@code -Ddistlock.history.seconds=600} (see README).
 */
@SlowTest
class HoldHistoryCheckTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final int PROCESSES = 3;
    private static final int THREADS = 4;

    @TempDir
    Path dir;

    private static HoldHistory.Hold parse(String line) {
        String[] f = line.split(",");
        return new HoldHistory.Hold(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), f[3]);
    }

    @Test
    void holdsRecordedByThreeProcessesNeverOverlapAndTokensGrowWithTime() throws Exception {
        long seconds = Long.getLong("distlock.history.seconds", 3);
        String lockName = Names.fresh("history");
        List<Process> children = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        try {
            for (int i = 0; i < PROCESSES; i++) {
                Path file = dir.resolve("holds-" + i + ".csv");
                files.add(file);
                children.add(HoldHistory.startJvm(
                        HoldRecorder.class,
                        dir.resolve("child-" + i + ".out"),
                        redis.server().uri(),
                        lockName,
                        Integer.toString(THREADS),
                        Long.toString(seconds * 1000),
                        file.toString()));
            }
            for (int i = 0; i < PROCESSES; i++) {
                assertThat(children.get(i).waitFor(seconds + 60, TimeUnit.SECONDS))
                        .as("child %d ended", i)
                        .isTrue();
                assertThat(children.get(i).exitValue())
                        .as("child %d: %s", i, Files.readString(dir.resolve("child-" + i + ".out")))
                        .isZero();
            }
        } finally {
            children.forEach(Process::destroyForcibly);
        }
        List<HoldHistory.Hold> holds = new ArrayList<>();
        for (Path file : files) {
            Files.readAllLines(file).stream()
                    .filter(l -> !l.isBlank())
                    .map(HoldHistoryCheckTest::parse)
                    .forEach(holds::add);
        }
        assertThat(holds.stream().map(h -> h.owner().split("/")[0]).distinct())
                .as("every process held the lock")
                .hasSize(PROCESSES);
        HoldHistory.assertExclusiveWithGrowingTokens(holds);
    }
}
