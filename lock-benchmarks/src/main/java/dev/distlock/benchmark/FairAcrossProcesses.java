package dev.distlock.benchmark;

import dev.distlock.testsupport.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The fair lock across processes for {@link HandOffBenchmark}: two child JVMs of four threads each
 * (scenario 4's {@link ChildProcess} with {@code fair=true}) lock and unlock one fair lock, distlock against
 * Redisson's {@code RFairLock}. Each child checks mutual exclusion through a shared mapped file, as in
 * scenario 4; the ops/s of both children are summed.
 */
final class FairAcrossProcesses {

    static final int PROCESSES = 2;
    static final int THREADS = 4;

    private FairAcrossProcesses() {}

    /** Ops/s of {@code library}'s fair lock, {@link #PROCESSES} JVMs x {@link #THREADS} threads; NaN on a violation. */
    static double opsPerSecond(
            RedisServer redis, Library library, List<String> jvmOptions, Duration warmup, Duration measure)
            throws Exception {
        Path occupancy = ContendedProcesses.sharedOccupancyFile();
        List<ChildJvm> children = new ArrayList<>();
        try {
            String key = "fair-across-" + library.id + "-" + System.nanoTime();
            List<String> args = ChildProcess.args(library, redis, key, occupancy, THREADS, warmup, measure, true);
            for (int i = 0; i < PROCESSES; i++) {
                children.add(ChildJvm.start("fair-child-" + (i + 1), jvmOptions, args, System.err));
            }
            for (ChildJvm child : children) {
                child.await(ChildProcess.READY, Duration.ofSeconds(120));
            }
            children.forEach(c -> c.send(ChildProcess.GO));
            double sum = 0;
            for (ChildJvm child : children) {
                Outcome o = Outcome.decode(child.await(
                        Outcome.RESULT,
                        warmup.plus(measure).plus(Workload.STUCK_AFTER).plusSeconds(60)));
                if (o.violations() > 0 || o.error() != null) {
                    System.err.println(library.id + ": " + o.violations() + " violations, error " + o.error());
                    return Double.NaN;
                }
                sum += o.opsPerSecond();
            }
            return sum;
        } finally {
            children.forEach(ChildJvm::close);
            deleteQuietly(occupancy);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a temp file left behind
        }
    }
}
