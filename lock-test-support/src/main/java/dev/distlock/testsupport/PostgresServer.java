package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real PostgreSQL server on a free loopback port, in a throw-away data directory ({@code initdb} then
 * {@code postgres}, no fsync), as {@link RedisServer} starts Redis. The binaries come from the
 * {@code postgres.bin} system property or {@code POSTGRES_BIN} (a {@code bin} directory), else the
 * {@code PATH}, else {@code /usr/lib/postgresql/<version>/bin} ({@code apt-get install postgresql}).
 * PostgreSQL refuses to run as root: as root the server runs as the {@code postgres} user (or
 * {@code nobody}) through {@code setpriv}. Tests call {@link #unavailableReason()} first and skip, with
 * that reason, where no binaries are found.
 */
public final class PostgresServer implements AutoCloseable {

    /** The superuser the server is initialised with; it logs in without a password (trust, loopback only). */
    public static final String USER = "distlock";

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final Set<PostgresServer> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> RUNNING.forEach(PostgresServer::close), "postgres-test-cleanup"));
    }

    private final int port;
    private final Path dir;
    private final Process process;

    private PostgresServer(int port, Path dir, Process process) {
        this.port = port;
        this.dir = dir;
        this.process = process;
    }

    /** Why no server can start here, or {@code null} when the binaries were found. */
    public static String unavailableReason() {
        return bin() == null
                ? "PostgreSQL is not installed (no initdb/postgres in postgres.bin, POSTGRES_BIN, the PATH or"
                        + " /usr/lib/postgresql/*/bin): apt-get install -y postgresql, as .ci/run does"
                : null;
    }

    /**
     * Starts a server as {@link #start()} does, or skips the calling test (a JUnit assumption, with
     * {@link #unavailableReason()}) where PostgreSQL is not installed.
     */
    public static PostgresServer startOrSkip() {
        String missing = unavailableReason();
        Assumptions.assumeTrue(missing == null, missing);
        return start();
    }

    /** Starts a server on a free port, waiting until it accepts connections. */
    public static PostgresServer start() {
        Path bin = bin();
        if (bin == null) {
            throw new IllegalStateException(unavailableReason());
        }
        try {
            Path dir = Files.createTempDirectory("distlock-postgres-");
            Path data = dir.resolve("data");
            Path log = dir.resolve("postgres.log");
            String user = runAs();
            if (user != null) {
                UserPrincipal owner =
                        dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user);
                Files.setOwner(dir, owner);
            }
            run(
                    user,
                    log,
                    bin.resolve("initdb").toString(),
                    "-D",
                    data.toString(),
                    "-U",
                    USER,
                    "-A",
                    "trust",
                    "-E",
                    "UTF8",
                    "--no-sync");
            int port = RedisServer.freePort();
            Process process = start(
                    user,
                    log,
                    bin.resolve("postgres").toString(),
                    "-D",
                    data.toString(),
                    "-p",
                    Integer.toString(port),
                    "-k",
                    dir.toString(),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "fsync=off",
                    "-c",
                    "full_page_writes=off");
            PostgresServer server = new PostgresServer(port, dir, process);
            RUNNING.add(server);
            server.awaitReady(log);
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The JDBC URL of the server's {@code postgres} database. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        RUNNING.remove(this);
        process.destroy(); // SIGTERM: smart shutdown
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp dir left behind is harmless
        }
    }

    private void awaitReady(Path log) throws IOException {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            String text = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            if (text.contains("ready to accept connections")) {
                return;
            }
            if (!process.isAlive()) {
                close();
                throw new IllegalStateException("postgres exited at start-up: " + text);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new IllegalStateException("interrupted while postgres started", e);
            }
        }
        close();
        throw new IllegalStateException("postgres did not get ready within " + STARTUP_TIMEOUT + ": "
                + Files.readString(log, StandardCharsets.UTF_8));
    }

    private static void run(String user, Path log, String... command) throws IOException {
        Process process = start(user, log, command);
        try {
            if (!process.waitFor(STARTUP_TIMEOUT.toSeconds(), TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(
                        String.join(" ", command) + " failed: " + Files.readString(log, StandardCharsets.UTF_8));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command[0], e);
        }
    }

    private static Process start(String user, Path log, String... command) throws IOException {
        List<String> line = new ArrayList<>();
        if (user != null) {
            line.addAll(List.of("setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups", "--"));
        }
        line.addAll(List.of(command));
        return new ProcessBuilder(line)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
    }

    /** The user to run as when this JVM runs as root (PostgreSQL refuses root), else {@code null}. */
    private static String runAs() throws IOException {
        if (!"root".equals(System.getProperty("user.name"))) {
            return null;
        }
        for (String user : List.of("postgres", "nobody")) {
            try {
                Path.of("/").getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user);
                return user;
            } catch (IOException e) {
                // try the next one
            }
        }
        throw new IllegalStateException(
                "running as root, and there is no postgres or nobody user to run PostgreSQL as");
    }

    private static Path bin() {
        String configured = System.getProperty("postgres.bin", System.getenv("POSTGRES_BIN"));
        List<Path> candidates = new ArrayList<>();
        if (configured != null && !configured.isBlank()) {
            candidates.add(Path.of(configured));
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String entry : path.split(java.io.File.pathSeparator)) {
                Path postgres = Path.of(entry).resolve("postgres");
                if (Files.isExecutable(postgres)) {
                    try {
                        candidates.add(postgres.toRealPath().getParent()); // /usr/local/bin links to the version's bin
                    } catch (IOException e) {
                        candidates.add(Path.of(entry));
                    }
                }
            }
        }
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            versions.sorted(Comparator.reverseOrder()).forEach(v -> candidates.add(v.resolve("bin")));
        } catch (IOException e) {
            // not installed there
        }
        return candidates.stream()
                .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("postgres")))
                .findFirst()
                .orElse(null);
    }
}
