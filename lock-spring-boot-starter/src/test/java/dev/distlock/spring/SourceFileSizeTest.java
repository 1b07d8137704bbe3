package dev.distlock.spring;

import dev.distlock.testsupport.SourceFiles;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Every main source file of the starter stays under {@value SourceFiles#MAX_LINES} lines, as the house style asks. */
class SourceFileSizeTest {

    /** From the starter's own folder and from the Boot-line modules that run its tests again alike. */
    static final Path MAIN = Path.of("..", "lock-spring-boot-starter", "src", "main", "java");

    @Test
    void everyMainSourceFileIsUnder300Lines() throws IOException {
        SourceFiles.assertNoneTooLong(MAIN);
    }
}
