package dev.distlock.testsupport;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Assumptions;

/**
 * Virtual threads for tests that run on Java 21+ while the sources stay Java 17 (reached by reflection),
 * and the JFR check that none of them was pinned to its carrier with one of our frames on its stack.
 */
public final class VirtualThreads {

    /** Work run under the recording. */
    public interface Work {
        void run() throws Exception;
    }

    /** The environment variable that names the Java 21+ JDK the virtual-threads profile runs them on. */
    public static final String JAVA21_ENV = "DISTLOCK_JAVA21";

    /** Why the virtual-thread tests did not run, and how to run them: the skip message of {@link #requireJava21Jdk}. */
    public static final String NOT_RUN =
            "The virtual-thread tests (VirtualThread*Test) did not run: they need a Java 21+"
                    + " JDK, and " + JAVA21_ENV + " names none. Run them with " + JAVA21_ENV
                    + "=/path/to/jdk-21-or-later ./mvnw verify (e.g. /usr/lib/jvm/temurin-25-jdk-amd64); .ci/run finds one"
                    + " under /usr/lib/jvm.";

    private VirtualThreads() {}

    /**
     * For a test that runs on the build's own JDK beside a module's virtual-thread tests: skipped, with
     * {@link #NOT_RUN} as its reason, when no Java 21+ JDK is configured (so the build counts and reports
     * a skip rather than leaving the tests silently out); otherwise fails unless the JDK is there.
     */
    public static void requireJava21Jdk() {
        String home = System.getenv(JAVA21_ENV);
        Assumptions.assumeTrue(home != null && !home.isBlank(), NOT_RUN);
        Path java = Path.of(home, "bin", "java");
        if (!Files.isExecutable(java)) {
            throw new AssertionError(JAVA21_ENV + "=" + home + " names no JDK: " + java + " is not an executable");
        }
    }

    /** {@code Executors.newVirtualThreadPerTaskExecutor()}. */
    public static ExecutorService perTaskExecutor() throws ReflectiveOperationException {
        return (ExecutorService)
                Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }

    /** {@code thread.isVirtual()}; false before Java 21. */
    public static boolean isVirtual(Thread thread) {
        Method isVirtual = IS_VIRTUAL;
        try {
            return isVirtual != null && (boolean) isVirtual.invoke(thread);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final Method IS_VIRTUAL = isVirtualMethod();

    private static Method isVirtualMethod() {
        try {
            return Thread.class.getMethod("isVirtual");
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /**
     * Runs {@code work} under a JFR recording of {@code jdk.VirtualThreadPinned} (every pinning, with its
     * stack) written to {@code file}, and returns the pinnings whose stack shows a frame of ours
     * ({@code dev.distlock.}), each described by that frame. Run a warm-up first: loading and initialising
     * a class pins its first user once (the JVM's doing, not a lock of ours).
     */
    public static List<String> pinnedInOurFrames(Path file, Work work) throws Exception {
        try (Recording recording = new Recording()) {
            recording
                    .enable("jdk.VirtualThreadPinned")
                    .withThreshold(Duration.ZERO)
                    .withStackTrace();
            recording.start();
            work.run();
            recording.stop();
            recording.dump(file);
        }
        if (Files.size(file) == 0) {
            throw new IOException("JFR wrote no recording to " + file);
        }
        List<String> ours = new ArrayList<>();
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            if (!event.getEventType().getName().equals("jdk.VirtualThreadPinned") || event.getStackTrace() == null) {
                continue;
            }
            List<RecordedFrame> frames = event.getStackTrace().getFrames();
            if (frames.stream().anyMatch(VirtualThreads::loadsOrLinksAClass)) {
                continue; // the JVM loading, initialising or linking a class (a lambda's too) on its first use
            }
            for (RecordedFrame frame : frames) {
                String type = frame.getMethod().getType().getName();
                if (type.startsWith("dev.distlock.")) {
                    ours.add(type + "." + frame.getMethod().getName() + " pinned for " + event.getDuration());
                    break;
                }
            }
        }
        return ours;
    }

    /**
     * A frame of class loading, initialisation or call-site linking: a pin under one happens once per class,
     * on its first use (a first refill of fencing tokens under load was one), whatever code asked for it.
     */
    private static boolean loadsOrLinksAClass(RecordedFrame frame) {
        String type = frame.getMethod().getType().getName();
        return frame.getMethod().getName().equals("<clinit>")
                || type.equals("java.lang.ClassLoader")
                || type.startsWith("jdk.internal.loader.")
                || type.startsWith("java.lang.invoke.");
    }
}
