package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every main source file of the starter stays under 300 lines, as the house style asks: a file that
 * grows past it has taken on a second concern, which belongs in a file of its own.
 */
class SourceFileSizeTest {

    static final int MAX_LINES = 300;

    /** From the starter's own folder and from the Boot-line modules that run its tests again alike. */
    static final Path MAIN = Path.of("..", "lock-spring-boot-starter", "src", "main", "java");

    @Test
    void everyMainSourceFileIsUnder300Lines() throws IOException {
        List<String> tooLong;
        try (Stream<Path> files = Files.walk(MAIN)) {
            tooLong = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> lines(f) >= MAX_LINES)
                    .map(f -> MAIN.relativize(f) + " (" + lines(f) + " lines)")
                    .sorted()
                    .toList();
        }
        assertThat(tooLong)
                .as("main source files of %s lines or more; split them by concern", MAX_LINES)
                .isEmpty();
    }

    private static long lines(Path file) {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
