package dev.distlock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Finds a {@code redis-server} executable: the {@code REDIS_SERVER} environment variable or
 * {@code redis.server} system property, else {@code redis-server} on the PATH, else the Linux/macOS
 * binary shipped inside the {@code embedded-redis} artifact, so a machine with only a JDK can run
 * the tests.
 */
public final class RedisBinary {

    private static volatile Path resolved;

    private RedisBinary() {}

    /** The executable to start, resolved once per JVM. */
    public static Path path() {
        Path p = resolved;
        if (p == null) {
            synchronized (RedisBinary.class) {
                if (resolved == null) {
                    resolved = resolve();
                }
                p = resolved;
            }
        }
        return p;
    }

    /**
     * Why a TLS test is skipped on the bundled fallback binary (built without TLS), and how to run it: the
     * reason such a test reports.
     */
    public static final String NO_TLS = "the bundled fallback redis-server is built without TLS: install a"
            + " redis-server with TLS (Redis 6+, e.g. apt-get install redis-server) on the PATH, or set REDIS_SERVER"
            + " to one, to run this TLS test";

    /** Whether the executable is the fallback extracted from the embedded-redis artifact. */
    public static boolean isBundled() {
        return path().getFileName().toString().startsWith("distlock-bundled-redis");
    }

    private static Path resolve() {
        String explicit = System.getProperty("redis.server", System.getenv("REDIS_SERVER"));
        if (explicit != null && !explicit.isBlank()) {
            Path p = Path.of(explicit);
            if (!Files.isExecutable(p)) {
                throw new IllegalStateException(
                        "REDIS_SERVER / redis.server points to " + p + ", which is not an executable file");
            }
            return p;
        }
        String pathEnv = System.getenv("PATH");
        if (pathEnv != null) {
            for (String dir : pathEnv.split(File.pathSeparator)) {
                Path candidate = Path.of(dir, "redis-server");
                if (Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return extractBundled();
    }

    private static Path extractBundled() {
        String resource = bundledResourceName();
        try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("No redis-server on PATH and no bundled binary '" + resource
                        + "' on the classpath; install redis-server or set REDIS_SERVER");
            }
            Path target = Files.createTempFile("distlock-bundled-redis", "");
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            if (!target.toFile().setExecutable(true)) {
                throw new IllegalStateException("Cannot make " + target + " executable");
            }
            target.toFile().deleteOnExit();
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot extract the bundled redis-server", e);
        }
    }

    private static String bundledResourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        boolean arm = arch.contains("aarch64") || arch.contains("arm");
        if (os.contains("linux")) {
            return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
        }
        if (os.contains("mac")) {
            return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
        }
        throw new IllegalStateException(
                "No bundled redis-server for " + os + "/" + arch + "; install redis-server or set REDIS_SERVER");
    }
}
