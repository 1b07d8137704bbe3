package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.testsupport.SourceFiles;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Every main source file of lock-benchmarks stays under {@value SourceFiles#MAX_LINES} lines, as the house style asks. */
class SourceFileSizeTest {

    @Test
    void everyMainSourceFileIsUnder300Lines() throws IOException {
        assertThat(SourceFiles.tooLong(Path.of("src", "main", "java")))
                .as("main source files of %s lines or more; split them by concern", SourceFiles.MAX_LINES)
                .isEmpty();
    }
}
