package dev.distlock.snippets;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every Java snippet of the README compiles: each ```java block must appear verbatim (but for
 * leading and trailing blank space) in one of the classes of this package's sub-packages, which the
 * build compiles. A snippet edited in the README but not here, or here but not in the README, fails.
 * Paths start from the module folder, which is a sibling of the README's folder for lock-samples and
 * for the Boot-line modules that compile these sources again.
 */
class ReadmeSnippetsTest {

    static final Path README = Path.of("..", "README.md");

    static final Path SNIPPETS = Path.of("..", "lock-samples", "src", "test", "java", "dev", "distlock", "snippets");

    static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);

    @Test
    @Timeout(30)
    void everyJavaSnippetOfTheReadmeIsACompiledSource() throws IOException {
        List<String> snippets = javaBlocks(Files.readString(README, StandardCharsets.UTF_8));
        List<String> sources = sources();
        assertThat(snippets).as("```java blocks in README.md").isNotEmpty();
        for (String snippet : snippets) {
            assertThat(sources)
                    .as("a compiled copy of this README snippet under %s (edit both together):%n%s", SNIPPETS, snippet)
                    .anyMatch(source -> source.contains(snippet));
        }
    }

    static List<String> javaBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        Matcher m = JAVA_BLOCK.matcher(markdown.replace("\r\n", "\n"));
        while (m.find()) {
            blocks.add(m.group(1).strip());
        }
        return blocks;
    }

    static List<String> sources() throws IOException {
        try (Stream<Path> files = Files.walk(SNIPPETS)) {
            return files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> !f.getFileName().toString().endsWith("Test.java"))
                    .map(ReadmeSnippetsTest::read)
                    .toList();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read snippet source " + file, e);
        }
    }
}
