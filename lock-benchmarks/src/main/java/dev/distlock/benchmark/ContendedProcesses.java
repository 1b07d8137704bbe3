package dev.distlock.benchmark;

import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Scenario 4, contended across processes: child JVMs ({@link ChildProcess}) lock and unlock the shared
 * key, each with its own client, while this JVM coordinates them, samples the Redis counters as their
 * windows open and close and probes Redis round trips under their load.
 */
final class ContendedProcesses {

    /** Pause between two round-trip probes of the multi-JVM scenario. */
    private static final long ROUND_TRIP_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final BenchmarkConfig config;
    private final RedisServer redis;
    private final RedisCommands<String, String> admin;
    private final PrintStream log;

    ContendedProcesses(
            BenchmarkConfig config, RedisServer redis, RedisCommands<String, String> admin, PrintStream log) {
        this.config = config;
        this.redis = redis;
        this.admin = admin;
        this.log = log;
    }

    /**
     * Scenario 4: every child JVM opens its own client and runs its threads on the shared key;
     * this JVM only coordinates, so it takes no part in the contention. The children share the
     * occupancy check through a memory-mapped file.
     */
    RunResult run(Library library) throws InterruptedException {
        Path shared = sharedOccupancyFile();
        List<ChildJvm> children = new ArrayList<>();
        try {
            List<String> args = ChildProcess.args(
                    library,
                    redis,
                    BenchmarkRunner.SHARED_KEY,
                    shared,
                    config.processThreads(),
                    config.processWarmup(),
                    config.measure(),
                    false);
            for (int i = 0; i < config.processes(); i++) {
                children.add(ChildJvm.start("child-" + (i + 1), config.childJvmOptions(), args, log));
            }
            long launched = System.nanoTime();
            for (ChildJvm child : children) {
                child.await(ChildProcess.READY, Duration.ofSeconds(120));
            }
            log.printf("[children ready after %.1f s] ", (System.nanoTime() - launched) / 1e9);
            // All GOs back to back: the children's windows start within a few milliseconds.
            children.forEach(c -> c.send(ChildProcess.GO));
            // Sample Redis when the children's windows open and close (to within a few milliseconds).
            Thread.sleep(config.processWarmup().toMillis());
            CommandStats.Snapshot before = CommandStats.snapshot(admin);
            LatencyHistogram roundTrips = roundTrips(config.measure());
            CommandStats.Snapshot after = CommandStats.snapshot(admin);
            Duration resultTimeout = Workload.STUCK_AFTER.plusSeconds(60);
            List<Outcome> outcomes = new ArrayList<>();
            for (ChildJvm child : children) {
                outcomes.add(Outcome.decode(child.await(Outcome.RESULT, resultTimeout)));
            }
            List<Long> jvmOps = outcomes.stream().map(Outcome::measuredOps).toList();
            return RunResult.of(
                            Scenario.CONTENDED_PROCESSES, library, Outcome.merge(outcomes), jvmOps, before, after, null)
                    .withRoundTrip(roundTrips.count() == 0 ? Double.NaN : roundTrips.quantile(0.50));
        } finally {
            long closing = System.nanoTime();
            children.forEach(ChildJvm::close);
            log.printf("[children closed in %.1f s] ", (System.nanoTime() - closing) / 1e9);
            try {
                Files.deleteIfExists(shared);
            } catch (IOException e) {
                log.println("Cannot delete " + shared + ": " + e);
            }
        }
    }

    /**
     * Redis round trips as a client sees them while the children run: a PING every
     * {@link #ROUND_TRIP_EVERY_NANOS} from this JVM for {@code window}, the yardstick of the cross-JVM
     * hand-off (a few hundred commands a second beside the children's thousands).
     */
    private LatencyHistogram roundTrips(Duration window) {
        LatencyHistogram h = new LatencyHistogram();
        long end = System.nanoTime() + window.toNanos();
        while (end - System.nanoTime() > 0) {
            long sent = System.nanoTime();
            admin.ping();
            h.record(System.nanoTime() - sent);
            LockSupport.parkNanos(ROUND_TRIP_EVERY_NANOS);
        }
        return h;
    }

    static Path sharedOccupancyFile() {
        try {
            Path file = Files.createTempFile("distlock-bench-occupancy", ".bin");
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                f.setLength(Occupancy.bytesFor(1));
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the shared occupancy file of the child JVMs", e);
        }
    }
}
