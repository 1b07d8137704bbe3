package dev.distlock.core.internal.redis.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The GraalVM metadata lock-core ships (META-INF/native-image/.../resource-config.json, read by
 * native-image with or without Spring): a native image holds every Lua script and nothing else of
 * this package. Without it the first lock in a native image would fail with "Lua script missing".
 */
class NativeImageResourceHintsTest {

    private static final String METADATA = "META-INF/native-image/dev.distlock/distlock-core/resource-config.json";
    private static final String SCRIPTS = "dev/distlock/core/internal/redis/script/";

    @Test
    void everyLuaScriptOfTheEngineIsIncludedInANativeImage() throws Exception {
        List<Pattern> includes = includePatterns();
        List<String> scripts = scriptResources();

        assertThat(scripts)
                .as("scripts found next to LockScript")
                .hasSizeGreaterThanOrEqualTo(10)
                .contains(SCRIPTS + "acquire.lua", SCRIPTS + "release.lua", SCRIPTS + "renew.lua");
        assertThat(scripts)
                .allSatisfy(script -> assertThat(includes)
                        .as(script)
                        .anySatisfy(pattern ->
                                assertThat(pattern.matcher(script).matches()).isTrue()));
    }

    @Test
    void theHintIncludesNoClassesAndNothingOutsideTheScriptFolder() throws Exception {
        List<Pattern> includes = includePatterns();
        for (String other : List.of(
                SCRIPTS + "LockScript.class",
                SCRIPTS + "nested/acquire.lua",
                "dev/distlock/core/acquire.lua",
                "other/dev/distlock/core/internal/redis/script/acquire.lua",
                SCRIPTS + "acquire.lua.bak")) {
            assertThat(includes)
                    .as(other)
                    .noneSatisfy(pattern ->
                            assertThat(pattern.matcher(other).matches()).isTrue());
        }
    }

    /** The "pattern" entries of the metadata, as GraalVM reads them: Java regular expressions on the whole resource path. */
    private static List<Pattern> includePatterns() throws IOException {
        String json;
        try (InputStream in = LockScript.class.getClassLoader().getResourceAsStream(METADATA)) {
            assertThat(in).as(METADATA + " on the classpath").isNotNull();
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Matcher entry = Pattern.compile("\"pattern\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"")
                .matcher(json);
        List<Pattern> patterns = new ArrayList<>();
        while (entry.find()) {
            patterns.add(Pattern.compile(entry.group(1).replace("\\\\", "\\")));
        }
        assertThat(patterns).as("include patterns in " + METADATA).isNotEmpty();
        return patterns;
    }

    /** Every .lua resource in the folder LockScript loads its scripts from (target/classes in this build). */
    private static List<String> scriptResources() throws IOException, URISyntaxException {
        Path folder =
                Path.of(LockScript.class.getResource("acquire.lua").toURI()).getParent();
        try (Stream<Path> files = Files.list(folder)) {
            return files.map(path -> path.getFileName().toString())
                    .filter(name -> name.endsWith(".lua"))
                    .map(name -> SCRIPTS + name)
                    .sorted()
                    .toList();
        }
    }
}
