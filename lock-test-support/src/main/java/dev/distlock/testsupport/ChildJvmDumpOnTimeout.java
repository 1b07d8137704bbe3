package dev.distlock.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.PreInterruptCallback;
import org.junit.jupiter.api.extension.PreInterruptContext;

/**
 * When a test times out, before JUnit interrupts it: prints the thread dump of every child JVM this JVM
 * started (workers of the across-process tests, forked benchmark runs), and kills them {@link #KILL_AFTER}
 * later. JUnit prints the test JVM's own dump ({@code junit.jupiter.execution.timeout.threaddump.enabled});
 * the children's show where the other side of a hang was. The kill waits so that JUnit's dump, which may
 * come after this one, still finds the test thread where it hung: a test waiting for its child would
 * otherwise go on the moment the child died. Killing them here, not only in the test's {@code finally},
 * frees the host even when the test thread ignores the interrupt.
 *
 * <p>Registered for every test by {@code META-INF/services} and extension autodetection
 * ({@code junit-platform.properties} of each module).
 */
public final class ChildJvmDumpOnTimeout implements PreInterruptCallback {

    private static final long DUMP_WAIT_SECONDS = 30;
    /** How long after the dumps the children are killed: JUnit's own dump comes within it. */
    static final Duration KILL_AFTER = Duration.ofSeconds(5);

    /** Created by JUnit's extension autodetection. */
    public ChildJvmDumpOnTimeout() {}

    @Override
    public void beforeThreadInterrupt(PreInterruptContext preInterruptContext, ExtensionContext extensionContext) {
        List<ProcessHandle> children = ProcessHandle.current()
                .descendants()
                .filter(ChildJvmDumpOnTimeout::isJava)
                .toList();
        for (ProcessHandle child : children) {
            System.out.println("Child JVM " + child.pid() + " of " + extensionContext.getDisplayName()
                    + " at its timeout, before it is killed: "
                    + child.info().commandLine().orElse("?"));
            System.out.println(threadDump(child));
        }
        if (!children.isEmpty()) {
            CompletableFuture.runAsync(
                    () -> children.forEach(ProcessHandle::destroyForcibly),
                    CompletableFuture.delayedExecutor(KILL_AFTER.toMillis(), TimeUnit.MILLISECONDS));
        }
    }

    private static boolean isJava(ProcessHandle process) {
        return process.info()
                .command()
                .map(c -> c.endsWith("/java") || c.endsWith("\\java.exe"))
                .orElse(false);
    }

    private static String threadDump(ProcessHandle child) {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        try {
            Path out = Files.createTempFile("child-jvm-" + child.pid(), ".txt");
            try {
                Process dump = new ProcessBuilder(jcmd.toString(), Long.toString(child.pid()), "Thread.print")
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
                if (!dump.waitFor(DUMP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                    dump.destroyForcibly();
                    return "(jcmd gave no thread dump within " + DUMP_WAIT_SECONDS + " s)";
                }
                return Files.readString(out, StandardCharsets.UTF_8);
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            return "(no thread dump: " + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "(no thread dump: interrupted)";
        }
    }
}
