package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** lock-core exports its API and nothing else; every other package is an internal wing. */
@Timeout(60)
class ModuleDescriptorTest {

    private static final Set<String> API =
            Set.of("dev.distlock.core", "dev.distlock.core.reactor", "dev.distlock.core.fence");

    @Test
    void exportsTheApiPackagesOnlyAndUnqualified() throws IOException {
        ModuleDescriptor module = descriptor();
        assertThat(module.name()).isEqualTo("dev.distlock.core");
        assertThat(module.exports())
                .allSatisfy(e -> assertThat(e.isQualified())
                        .as("export of %s", e.source())
                        .isFalse());
        assertThat(module.exports().stream().map(ModuleDescriptor.Exports::source))
                .containsExactlyInAnyOrderElementsOf(API);
        assertThat(module.opens()).isEmpty();
    }

    @Test
    void everyOtherPackageIsAnInternalWing() throws IOException {
        Set<String> others =
                descriptor().packages().stream().filter(p -> !API.contains(p)).collect(Collectors.toSet());
        assertThat(others).isNotEmpty().allSatisfy(p -> assertThat(p).startsWith("dev.distlock.core.internal."));
    }

    @Test
    void theApiPackagesHoldNoPackagePrivateTypes() throws IOException {
        // an engine class left beside the API would be invisible to users yet clutter the API's folder
        Path classes = classesDir();
        for (String api : API) {
            try (Stream<Path> files = Files.list(classes.resolve(api.replace('.', '/')))) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".class")).toList()) {
                    String name = api + "." + file.getFileName().toString().replace(".class", "");
                    if (name.endsWith("package-info") || name.contains("$")) {
                        continue;
                    }
                    try {
                        Class<?> type = Class.forName(name, false, getClass().getClassLoader());
                        assertThat(java.lang.reflect.Modifier.isPublic(type.getModifiers()))
                                .as("%s is public API", name)
                                .isTrue();
                    } catch (ClassNotFoundException e) {
                        throw new AssertionError(name, e);
                    }
                }
            }
        }
    }

    private static ModuleDescriptor descriptor() throws IOException {
        try (InputStream in = Files.newInputStream(classesDir().resolve("module-info.class"))) {
            return ModuleDescriptor.read(in, () -> packagesUnder(classesDir()));
        }
    }

    private static Path classesDir() {
        try {
            return Path.of(LockClient.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<String> packagesUnder(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> root.relativize(f.getParent()).toString().replace('/', '.'))
                    .filter(p -> !p.isEmpty())
                    .collect(Collectors.toSet());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
