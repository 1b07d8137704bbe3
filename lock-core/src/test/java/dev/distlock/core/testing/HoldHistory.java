package dev.distlock.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.testsupport.RedisServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Hold histories recorded by child JVMs (token, start and end on the Redis server's clock, owner),
 * and the check that a history is exclusive: sorted by start, every hold starts after the one before
 * ended and has a larger fencing token.
 */
public final class HoldHistory {

    public record Hold(long token, long start, long end, String owner) {}

    private HoldHistory() {}

    public static void assertExclusiveWithGrowingTokens(List<Hold> holds) {
        List<Hold> history = new ArrayList<>(holds);
        history.sort(Comparator.comparingLong(Hold::start));
        for (int i = 1; i < history.size(); i++) {
            Hold before = history.get(i - 1);
            Hold after = history.get(i);
            assertThat(after.start())
                    .as("hold %s starts after %s ended", after, before)
                    .isGreaterThanOrEqualTo(before.end());
            assertThat(after.token())
                    .as("hold %s has a larger token than the earlier %s", after, before)
                    .isGreaterThan(before.token());
        }
    }

    /** Keys other than the fencing counters (kept on purpose) and release notes (expiring within seconds). */
    public static List<String> leftKeys(RedisServer server) {
        return Arrays.stream(server.query("KEYS", "*").split("\n"))
                .filter(k -> !k.isBlank())
                .filter(k -> !k.endsWith(":fence") && !k.contains(":released:"))
                .toList();
    }

    /** Starts {@code main} of a test class in a child JVM on the test class path, its output (and errors) to {@code output}. */
    public static Process startJvm(Class<?> main, Path output, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
    }
}
