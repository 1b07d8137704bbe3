package dev.distlock.benchmark;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/** The parent's handle on one child JVM: a worker of scenario 4 ({@link ChildProcess}) or a forked run ({@link ForkedRun}). */
final class ChildJvm implements AutoCloseable {

    private static final String EOF = "\u0000eof";

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
    private final PrintStream log;

    private ChildJvm(String name, Process process, PrintStream log) {
        this.name = name;
        this.log = log;
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        pump(process.getInputStream(), line -> stdout.add(line), () -> stdout.add(EOF), name + "-out");
        // Forwarded through this JVM's System.err rather than inherited, so a test runner that
        // captures the parent's streams captures the children's too.
        pump(process.getErrorStream(), line -> log.println("[" + name + "] " + line), () -> {}, name + "-err");
    }

    static ChildJvm start(String name, List<String> jvmOptions, List<String> childArgs, PrintStream log) {
        return start(name, ChildProcess.FLAG, jvmOptions, childArgs, log);
    }

    /** A child JVM running the part of the benchmark that {@code flag} names ({@link LockBenchmark#main}). */
    static ChildJvm start(String name, String flag, List<String> jvmOptions, List<String> childArgs, PrintStream log) {
        List<String> cmd = new ArrayList<>(javaCommand(jvmOptions));
        cmd.add(flag);
        cmd.addAll(childArgs);
        try {
            return new ChildJvm(name, new ProcessBuilder(cmd).start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start child JVM: " + cmd, e);
        }
    }

    /**
     * The child's side: takes stdout over as the channel to the parent and sends whatever else would
     * print there (a library, the JVM) to stderr, which the parent logs.
     */
    static PrintStream protocolChannel() {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        return out;
    }

    /**
     * This JVM's own java and class path. A Spring Boot executable jar keeps its libraries nested
     * inside, so a plain {@code -cp} of it would miss them: start it with {@code -jar} instead.
     */
    static List<String> javaCommand(List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        String classPath = System.getProperty("java.class.path");
        if (!classPath.contains(File.pathSeparator) && classPath.endsWith(".jar") && isBootJar(classPath)) {
            cmd.addAll(List.of("-jar", classPath));
        } else {
            cmd.addAll(List.of("-cp", classPath, LockBenchmark.class.getName()));
        }
        return cmd;
    }

    private static boolean isBootJar(String path) {
        try (JarFile jar = new JarFile(path)) {
            return jar.getManifest() != null
                    && jar.getManifest().getMainAttributes().getValue("Start-Class") != null;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The next stdout line starting with {@code prefix}. Other lines are passed to the log: the
     * JVM itself may print a warning on stdout before the child takes the stream over.
     */
    String await(String prefix, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = stdout.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new IllegalStateException(name + " sent no " + prefix + " within " + timeout.toSeconds() + " s");
            }
            if (line.equals(EOF)) {
                stdout.add(EOF); // keep it for later callers
                throw new IllegalStateException(name + " exited before " + prefix + " (see its stderr above)");
            }
            if (line.startsWith(prefix)) {
                return line;
            }
            log.println("[" + name + " stdout] " + line);
        }
    }

    void send(String line) {
        try {
            stdin.write(line + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + " no longer reads its stdin", e);
        }
    }

    /** Closes stdin (the child's cue that the parent is done) and waits for it, then kills it. */
    @Override
    public void close() {
        try {
            stdin.close();
        } catch (IOException ignored) {
            // already gone
        }
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static void pump(
            InputStream in, java.util.function.Consumer<String> sink, Runnable atEnd, String threadName) {
        Thread t = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = r.readLine()) != null) {
                            sink.accept(line);
                        }
                    } catch (IOException ignored) {
                        // the process died; atEnd reports it
                    } finally {
                        atEnd.run();
                    }
                },
                threadName);
        t.setDaemon(true);
        t.start();
    }
}
