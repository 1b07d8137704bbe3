package dev.distlock.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.json.JsonParserFactory;

/**
 * docs/configuration.md is rendered from the configuration metadata that
 * spring-boot-configuration-processor writes from {@code DistributedLockProperties}, so the reference
 * cannot drift from the code: a changed property, default or javadoc line fails this test until the
 * file is written again with {@code -Ddistlock.docs.write=true}. The "accepted" column comes from
 * {@link PropertyRanges}, whose every row {@code PropertyRangesTest} proves against start-up.
 */
public class ConfigurationReferenceTest {

    static final Path REFERENCE = Path.of("..", "docs", "configuration.md");

    static final String WRITE = "distlock.docs.write";

    static final String HEADER = """
            # Configuration reference

            <!-- Generated from the starter's configuration metadata by ConfigurationReferenceTest; do not edit by hand.
                 Change the javadoc or default in DistributedLockProperties or its group classes (a range: PropertyRanges in the starter's tests), then run
                 ./mvnw -pl lock-spring-boot-starter test -Dtest=ConfigurationReferenceTest -Ddistlock.docs.write=true -->

            Every property of the starter, with its default and the values it accepts. Durations take Spring
            Boot's formats (`500ms`, `2s`, `1m`, `1d`, ISO-8601 `PT2S`; a bare number is milliseconds). A value
            outside a property's range fails start-up with a report naming the property and how to fix it. Redis
            itself is configured with Spring Boot's own `spring.data.redis.*`.

            """;

    @Test
    @Timeout(30)
    void referenceMatchesTheConfigurationMetadata() throws IOException {
        String rendered = render(properties());
        if (Boolean.getBoolean(WRITE)) {
            Files.writeString(REFERENCE, rendered, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(REFERENCE) ? Files.readString(REFERENCE, StandardCharsets.UTF_8) : "";
        assertThat(committed)
                .as(
                        "%s is out of date with the configuration metadata; rewrite it with "
                                + "./mvnw -pl lock-spring-boot-starter test -Dtest=ConfigurationReferenceTest -D%s=true "
                                + "and commit it",
                        REFERENCE.normalize(), WRITE)
                .isEqualTo(rendered);
    }

    /** The properties of every metadata file on the classpath that declares distlock.* properties. */
    @SuppressWarnings("unchecked")
    public static List<Map<String, Object>> properties() throws IOException {
        List<Map<String, Object>> properties = new ArrayList<>();
        Enumeration<URL> files = ConfigurationReferenceTest.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json");
        while (files.hasMoreElements()) {
            try (InputStream in = files.nextElement().openStream()) {
                String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                List<Object> declared = (List<Object>)
                        JsonParserFactory.getJsonParser().parseMap(json).getOrDefault("properties", List.of());
                List<Map<String, Object>> ours = declared.stream()
                        .map(p -> (Map<String, Object>) p)
                        .filter(p -> String.valueOf(p.get("sourceType")).startsWith("dev.distlock."))
                        .toList();
                if (ours.stream().anyMatch(p -> String.valueOf(p.get("name")).startsWith("distlock."))) {
                    properties.addAll(ours);
                }
            }
        }
        assertThat(properties)
                .as("distlock.* configuration metadata on the classpath")
                .isNotEmpty();
        properties.sort(Comparator.comparing(p -> String.valueOf(p.get("name"))));
        return properties;
    }

    static String render(List<Map<String, Object>> properties) {
        StringBuilder out = new StringBuilder(HEADER);
        out.append(table(properties.stream()
                .filter(p -> String.valueOf(p.get("name")).startsWith("distlock."))
                .toList()));
        List<Map<String, Object>> others = properties.stream()
                .filter(p -> !String.valueOf(p.get("name")).startsWith("distlock."))
                .toList();
        if (!others.isEmpty()) {
            out.append("\n## Actuator and other keys the starter declares\n\n").append(table(others));
        }
        return out.toString();
    }

    static String table(List<Map<String, Object>> properties) {
        return "| property | type | default | accepted | description |\n| --- | --- | --- | --- | --- |\n"
                + properties.stream().map(ConfigurationReferenceTest::row).collect(Collectors.joining());
    }

    static String row(Map<String, Object> p) {
        String type = String.valueOf(p.get("type"));
        Object description = p.getOrDefault("description", "");
        String name = String.valueOf(p.get("name"));
        return "| `%s` | %s | %s | %s | %s |\n"
                .formatted(
                        name,
                        cell(typeName(type)),
                        p.containsKey("defaultValue") ? "`" + p.get("defaultValue") + "`" : "(none)",
                        PropertyRanges.of(name).map(r -> cell(r.accepted())).orElse(""),
                        cell(String.valueOf(description)));
    }

    /** Simple names for the reader; an enum lists the values it accepts, as they are written in YAML. */
    static String typeName(String type) {
        try {
            Class<?> enumType = Class.forName(type);
            if (enumType.isEnum()) {
                return Arrays.stream(enumType.getEnumConstants())
                        .map(c -> "`" + ((Enum<?>) c).name().toLowerCase(Locale.ROOT) + "`")
                        .collect(Collectors.joining(" / "));
            }
        } catch (ClassNotFoundException notAClass) {
            // a generic type such as java.util.List<java.lang.String>: shortened below
        }
        return type.replaceAll("[a-z][a-z0-9_]*\\.", "").replace('$', '.');
    }

    static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
