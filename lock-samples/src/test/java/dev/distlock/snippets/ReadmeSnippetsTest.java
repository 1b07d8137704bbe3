package dev.distlock.snippets;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every Java snippet of the README and of docs/*.md compiles: each ```java block must appear verbatim
 * (but for leading and trailing blank space) in one of the classes of this package's sub-packages, which
 * the build compiles. A README block stands at the start of its lines there (the README shows whole
 * classes); a docs block may stand indented as a whole (a method inside its class, statements inside a
 * method: package {@code docs}, where each sits between {@code // docs:begin} and {@code // docs:end}).
 * A snippet edited in the Markdown but not here, or here but not in the Markdown, fails. Paths start
 * from the module folder, which is a sibling of the README's folder for lock-samples and for the
 * Boot-line modules that compile these sources again.
 */
class ReadmeSnippetsTest {

    static final Path README = Path.of("..", "README.md");

    static final Path SNIPPETS = Path.of("..", "lock-samples", "src", "test", "java", "dev", "distlock", "snippets");

    static final Path DOCS = Path.of("..", "docs");

    /**
     * Docs blocks that no class here can hold, each with why: code of a library the build does not depend on.
     * Keyed by page and the block's first line; a key that matches no block any more fails too.
     */
    static final Map<String, String> NOT_COMPILED = Map.of();

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

    @Test
    @Timeout(30)
    void everyJavaSnippetOfTheDocsIsACompiledSource() throws IOException {
        List<String> sources = sources();
        List<String> exempted = new ArrayList<>();
        List<Path> pages;
        try (Stream<Path> files = Files.list(DOCS)) {
            pages = files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
        }
        int checked = 0;
        for (Path page : pages) {
            for (String snippet : javaBlocks(Files.readString(page, StandardCharsets.UTF_8))) {
                String key =
                        page.getFileName() + ": " + snippet.lines().findFirst().orElse("");
                if (NOT_COMPILED.containsKey(key)) {
                    exempted.add(key);
                    continue;
                }
                checked++;
                assertThat(sources)
                        .as(
                                "a compiled copy of this %s snippet under %s/docs (edit both together):%n%s",
                                page.getFileName(), SNIPPETS, snippet)
                        .anyMatch(source -> containsIndented(source, snippet));
            }
        }
        assertThat(checked).as("```java blocks in docs/*.md").isPositive();
        assertThat(exempted)
                .as("docs blocks listed in NOT_COMPILED that still exist")
                .containsExactlyInAnyOrderElementsOf(NOT_COMPILED.keySet());
    }

    /** Whether {@code source} holds {@code snippet}'s lines in a row, each indented alike (blank lines bare). */
    static boolean containsIndented(String source, String snippet) {
        for (String indent = ""; indent.length() <= 16; indent += "    ") {
            String prefix = indent;
            String indented = snippet.lines()
                    .map(line -> line.isBlank() ? "" : prefix + line)
                    .collect(Collectors.joining("\n"));
            if (source.contains(indented)) {
                return true;
            }
        }
        return false;
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
