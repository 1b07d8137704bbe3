package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.HolderWorker;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.SemaphoreWorker;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A semaphore across JVMs: three child processes of eight threads each never hold more than its permits
 * at once (counted by the holders in a Redis counter outside the library), every grant has a token of its
 * own, and nothing is left in Redis; a holder killed with SIGKILL gives its permit back within its lease
 * plus two seconds.
 */
@SlowTest
class SemaphoreAcrossProcessesTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final int PERMITS = 3;
    private static final Duration RUN_TIME = Duration.ofSeconds(4);

    @TempDir
    Path dir;

    @Test
    void threeProcessesOfEightThreadsNeverHoldMoreThanThreePermits() throws Exception {
        String name = Names.fresh("sem-procs");
        String counter = Names.fresh("inside");
        List<Process> children = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Path output = dir.resolve("child-" + i + ".out");
                outputs.add(output);
                children.add(start(
                        output,
                        SemaphoreWorker.class.getName(),
                        name,
                        Integer.toString(PERMITS),
                        counter,
                        "8",
                        Long.toString(RUN_TIME.toMillis())));
            }
            await().atMost(Waits.GRANTED).until(() -> allPrinted(children, outputs, "READY"));
            for (Process child : children) {
                try (OutputStream stdin = child.getOutputStream()) {
                    stdin.write("GO\n".getBytes(StandardCharsets.UTF_8));
                }
            }
            long grants = 0;
            for (int i = 0; i < children.size(); i++) {
                assertThat(children.get(i).waitFor(RUN_TIME.toSeconds() + 60, TimeUnit.SECONDS))
                        .as("child %d ended", i)
                        .isTrue();
                String output = Files.readString(outputs.get(i));
                assertThat(children.get(i).exitValue())
                        .as("child %d; output:%n%s", i, output)
                        .isZero();
                long mine = output.lines()
                        .filter(l -> l.startsWith("GRANTS "))
                        .mapToLong(l -> Long.parseLong(l.substring(7)))
                        .findFirst()
                        .orElseThrow();
                assertThat(mine).as("child %d got permits", i).isPositive();
                grants += mine;
            }

            assertThat(redis.server().query("LRANGE", counter + ":over", "0", "-1"))
                    .as("entries that found more holders than permits")
                    .isBlank();
            List<String> tokens = List.of(redis.server()
                    .query("LRANGE", counter + ":tokens", "0", "-1")
                    .split("\n"));
            assertThat(tokens).hasSize((int) grants).doesNotHaveDuplicates();
            assertThat(redis.server().query("KEYS", LockClientOptions.DEFAULT_KEY_PREFIX + "{" + name + "}"))
                    .as("no holder left")
                    .isBlank();
        } finally {
            children.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void aHolderKilledWithSigkillGivesItsPermitBackWithinItsLeasePlusTwoSeconds() throws Exception {
        String name = Names.fresh("sem-killed");
        long leaseMs = 3000;
        Path output = dir.resolve("holder.out");
        Process holder = start(output, HolderWorker.class.getName(), name, Long.toString(leaseMs), "1");
        try (LockClient client =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            await().atMost(Waits.GRANTED).until(() -> Files.readString(output).contains("HELD"));
            RedisSemaphore semaphore = client.getSemaphore(name, 1);
            // renewed while the holder lives: still taken after more than a lease
            Thread.sleep(leaseMs + 500);
            assertThat(semaphore.availablePermits()).isZero();

            holder.destroyForcibly(); // SIGKILL: no release, no shutdown hook
            assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();

            Optional<LockHandle> permit = semaphore.tryAcquire(1, Duration.ofMillis(leaseMs + 2000), null);
            assertThat(permit).as("free within the lease plus 2 s").isPresent();
            permit.get().unlock();
        } finally {
            holder.destroyForcibly();
        }
    }

    private Process start(Path output, String mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                mainClass,
                redis.server().uri()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
    }

    private static boolean allPrinted(List<Process> children, List<Path> outputs, String line) throws IOException {
        for (int i = 0; i < children.size(); i++) {
            String output = Files.exists(outputs.get(i)) ? Files.readString(outputs.get(i)) : "";
            if (!children.get(i).isAlive()) {
                throw new AssertionError("child " + i + " exited early:\n" + output);
            }
            if (!output.lines().anyMatch(line::equals)) {
                return false;
            }
        }
        return true;
    }
}
