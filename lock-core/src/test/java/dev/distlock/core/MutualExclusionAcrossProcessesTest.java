package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.CounterWorker;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual exclusion across JVMs: two child processes ({@link CounterWorker}) with 8 threads each
 * increment one Redis counter by GET then SET under the same RedisLock for a few seconds. Any
 * overlap of two critical sections loses an update, so the counter would fall short of the sum of
 * the increments the children report. The fencing tokens the holders saw, in grant order, must
 * strictly increase.
 */
@SlowTest
class MutualExclusionAcrossProcessesTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final int CHILDREN = 2;
    private static final int THREADS_PER_CHILD = 8;
    private static final Duration RUN_TIME = Duration.ofSeconds(4);

    @TempDir
    Path dir;

    @Test
    void twoProcessesNeverRunTheCriticalSectionAtTheSameTime() throws Exception {
        String lockName = Names.fresh("mutex");
        String counterKey = Names.fresh("counter");
        List<Process> children = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        try {
            for (int i = 0; i < CHILDREN; i++) {
                Path output = dir.resolve("child-" + i + ".out");
                outputs.add(output);
                children.add(startChild(lockName, counterKey, output));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> allReady(children, outputs));
            for (Process child : children) {
                try (OutputStream stdin = child.getOutputStream()) {
                    stdin.write("GO\n".getBytes(StandardCharsets.UTF_8));
                }
            }

            long reported = 0;
            for (int i = 0; i < CHILDREN; i++) {
                Process child = children.get(i);
                assertThat(child.waitFor(RUN_TIME.toSeconds() + 60, TimeUnit.SECONDS))
                        .as("child %d ended", i)
                        .isTrue();
                String output = Files.readString(outputs.get(i));
                assertThat(child.exitValue())
                        .as("child %d exit code; output:%n%s", i, output)
                        .isZero();
                long increments = increments(output);
                assertThat(increments).as("child %d did some of the work", i).isPositive();
                reported += increments;
            }

            try (RedisProbe probe = RedisProbe.connect(redis.server())) {
                assertThat(Long.parseLong(probe.sync().get(counterKey)))
                        .as("no increment was lost")
                        .isEqualTo(reported);
                List<Long> tokens = probe.sync().lrange(counterKey + ":tokens", 0, -1).stream()
                        .map(Long::parseLong)
                        .toList();
                assertThat(tokens).as("one token per hold").hasSize((int) reported);
                for (int i = 1; i < tokens.size(); i++) {
                    assertThat(tokens.get(i)).as("token of grant %d", i).isGreaterThan(tokens.get(i - 1));
                }
            }
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }

    private Process startChild(String lockName, String counterKey, Path output) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // surefire puts the test classpath in a manifest-only jar; the real one is in this property
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return new ProcessBuilder(
                        java,
                        "-Xmx256m",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        classpath,
                        CounterWorker.class.getName(),
                        redis.server().uri(),
                        lockName,
                        counterKey,
                        Integer.toString(THREADS_PER_CHILD),
                        Long.toString(RUN_TIME.toMillis()))
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
    }

    private static boolean allReady(List<Process> children, List<Path> outputs) {
        for (int i = 0; i < children.size(); i++) {
            String output = read(outputs.get(i));
            if (!children.get(i).isAlive()) {
                throw new AssertionError("child " + i + " exited before it was ready:\n" + output);
            }
            if (!output.lines().anyMatch("READY"::equals)) {
                return false;
            }
        }
        return true;
    }

    private static long increments(String output) {
        return output.lines()
                .filter(l -> l.startsWith("INCREMENTS "))
                .mapToLong(l -> Long.parseLong(l.substring("INCREMENTS ".length())))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no INCREMENTS line in child output:\n" + output));
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
