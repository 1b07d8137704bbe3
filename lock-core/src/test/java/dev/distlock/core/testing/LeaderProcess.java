package dev.distlock.core.testing;

import dev.distlock.testsupport.Signals;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A {@link LeaderWorker} in a child JVM, as the test sees it: its output lines, its stdin, signals. */
public final class LeaderProcess implements AutoCloseable {

    /** A grant the worker reported: its term and when (epoch ms, the worker's clock). */
    public record Grant(long term, long atMillis) {}

    public final String id;
    private final Process process;
    private final Path output;

    private LeaderProcess(String id, Process process, Path output) {
        this.id = id;
        this.process = process;
        this.output = output;
    }

    /** Starts worker {@code id} for {@code role}; its output goes to a file in {@code dir}. */
    public static LeaderProcess start(String redisUri, String role, long leaseMs, String storeKey, String id, Path dir)
            throws IOException {
        Path output = dir.resolve(id + ".out");
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx128m",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                        LeaderWorker.class.getName(),
                        redisUri,
                        role,
                        Long.toString(leaseMs),
                        storeKey,
                        id)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        return new LeaderProcess(id, process, output);
    }

    public List<String> lines() {
        try {
            return Files.exists(output) ? Files.readAllLines(output) : List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether it printed READY; fails with its output when it died first. */
    public boolean ready() {
        if (!process.isAlive()) {
            throw new AssertionError("worker " + id + " exited before it was ready:\n" + String.join("\n", lines()));
        }
        return lines().contains("READY");
    }

    public List<Grant> grants() {
        return lines().stream()
                .filter(l -> l.startsWith("GRANTED "))
                .map(l -> l.split(" "))
                .map(p -> new Grant(Long.parseLong(p[1]), Long.parseLong(p[2])))
                .toList();
    }

    public List<String> linesStartingWith(String prefix) {
        return lines().stream().filter(l -> l.startsWith(prefix)).toList();
    }

    /** Sends one command line to its stdin. */
    public void send(String command) {
        try {
            OutputStream stdin = process.getOutputStream();
            stdin.write((command + "\n").getBytes(StandardCharsets.UTF_8));
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGKILL: no release, no shutdown hook; returns once it is dead. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("worker " + id + " did not die of SIGKILL");
        }
    }

    /** SIGSTOP ({@code pause}) or SIGCONT. */
    public void signal(boolean pause) {
        Signals.send(process.pid(), pause ? "STOP" : "CONT");
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL, which ends a stopped process too. */
    @Override
    public void close() {
        process.destroyForcibly();
    }
}
