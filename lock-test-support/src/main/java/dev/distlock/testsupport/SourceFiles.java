package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The house style's size rule for a module's main sources: a file that grows to {@link #MAX_LINES} has
 * taken on a second concern, which belongs in a file of its own.
 */
public final class SourceFiles {

    public static final int MAX_LINES = 300;

    private SourceFiles() {}

    /** The Java files under {@code root} of {@link #MAX_LINES} lines or more, each with its count, sorted. */
    public static List<String> tooLong(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> lines(f) >= MAX_LINES)
                    .map(f -> root.relativize(f) + " (" + lines(f) + " lines)")
                    .sorted()
                    .toList();
        }
    }

    /**
     * Fails when a Java file under {@code root} (a module's {@code src/main/java}) has {@link #MAX_LINES} lines
     * or more, naming each with its count.
     */
    public static void assertNoneTooLong(Path root) throws IOException {
        List<String> tooLong = tooLong(root);
        if (!tooLong.isEmpty()) {
            throw new AssertionError(
                    "main source files of " + MAX_LINES + " lines or more; split them by concern: " + tooLong);
        }
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
