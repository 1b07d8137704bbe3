package dev.distlock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RedisServer}'s own temp directory: its working directory, its log and output files, and a
 * Sentinel's config file; and the {@code redis-server} command line that uses them.
 */
final class ServerDir {

    private final Path dir;

    ServerDir(int port) {
        try {
            this.dir = Files.createTempDirectory("distlock-redis-" + port + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The command line of a server on {@code port} without persistence, logging here; a Sentinel's
     * {@code configLines} are written to its config file the first time (then Sentinel owns the file).
     */
    List<String> commandLine(int port, @Nullable List<String> configLines, List<String> extraArgs) {
        List<String> cmd = new ArrayList<>();
        cmd.add(RedisBinary.path().toString());
        if (configLines != null) {
            // redis-server wants the config file as its first argument
            Path conf = dir.resolve("sentinel.conf");
            try {
                if (!Files.exists(conf)) {
                    Files.write(conf, configLines);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            cmd.add(conf.toString());
        }
        cmd.addAll(List.of(
                "--port",
                String.valueOf(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--protected-mode",
                "no",
                "--dir",
                dir.toString(),
                "--logfile",
                dir.resolve("redis.log").toString()));
        cmd.addAll(extraArgs);
        return cmd;
    }

    /** Where the process's own output goes (what it prints before its log file opens). */
    File stdout() {
        return dir.resolve("stdout.log").toFile();
    }

    /** The log and output so far (the last 2000 characters), for failure messages. */
    String log() {
        try {
            Path log = dir.resolve("redis.log");
            Path out = dir.resolve("stdout.log");
            String text =
                    (Files.exists(log) ? Files.readString(log) : "") + (Files.exists(out) ? Files.readString(out) : "");
            return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    void delete() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // temp dir; best effort
        }
    }
}
