package dev.distlock.benchmark;

import dev.distlock.testsupport.SourceFiles;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Every main source file of lock-benchmarks stays under {@value SourceFiles#MAX_LINES} lines, as the house style asks. */
class SourceFileSizeTest {

    @Test
    void everyMainSourceFileIsUnder300Lines() throws IOException {
        SourceFiles.assertNoneTooLong(Path.of("src", "main", "java"));
    }
}
