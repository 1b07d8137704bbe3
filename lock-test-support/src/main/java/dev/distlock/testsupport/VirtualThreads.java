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

/**
 * Virtual threads for tests that run on Java 21+ while the sources stay Java 17 (reached by reflection),
 * and the JFR check that none of them was pinned to its carrier with one of our frames on its stack.
 */
public final class VirtualThreads {

    /** Work run under the recording. */
    public interface Work {
        void run() throws Exception;
    }

    private VirtualThreads() {}

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
            for (RecordedFrame frame : event.getStackTrace().getFrames()) {
                String type = frame.getMethod().getType().getName();
                if (type.startsWith("dev.distlock.")) {
                    ours.add(type + "." + frame.getMethod().getName() + " pinned for " + event.getDuration());
                    break;
                }
            }
        }
        return ours;
    }
}
