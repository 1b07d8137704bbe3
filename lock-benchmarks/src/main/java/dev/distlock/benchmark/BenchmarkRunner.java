package dev.distlock.benchmark;

import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Runs every selected scenario for every selected library against one Redis, one run at a time,
 * with the keyspace flushed before each run so no library inherits another's keys.
 */
final class BenchmarkRunner implements AutoCloseable {

    private static final String SHARED_KEY = "bench-key-shared";

    private final BenchmarkConfig config;
    private final RedisServer redis;
    private final PrintStream log;
    private final RedisClient adminClient;
    private final StatefulRedisConnection<String, String> adminConnection;
    private final RedisCommands<String, String> admin;

    BenchmarkRunner(BenchmarkConfig config, RedisServer redis, PrintStream log) {
        this.config = config;
        this.redis = redis;
        this.log = log;
        this.adminClient = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
        this.adminConnection = adminClient.connect();
        this.admin = adminConnection.sync();
    }

    /** {@code redis_version} of the server, for the report. */
    String redisVersion() {
        for (String line : admin.info("server").split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "?";
    }

    /**
     * Runs every scenario and library {@code rounds} times, libraries interleaved within a round, and
     * returns each pair's median run (a failed run wins, so failures are never hidden).
     */
    List<RunResult> runAll() {
        Map<String, List<RunResult>> runs = new LinkedHashMap<>();
        for (int round = 1; round <= config.rounds(); round++) {
            for (Scenario scenario : config.scenarios()) {
                for (Library library : config.libraries()) {
                    log.printf(
                            "[%d/%d] %-45s %-18s ... ", round, config.rounds(), scenario.label(config), library.label);
                    long start = System.nanoTime();
                    RunResult r = run(scenario, library);
                    log.printf(
                            "%,.0f ops/s, p50 %s, p99 %s, %d violations%s (%.1f s)%n",
                            r.opsPerSecond(),
                            Report.millis(r.p50Nanos()),
                            Report.millis(r.p99Nanos()),
                            r.violations(),
                            r.ok() ? "" : ", FAILED: " + r.error(),
                            (System.nanoTime() - start) / 1e9);
                    runs.computeIfAbsent(scenario.name() + "/" + library.id, k -> new ArrayList<>())
                            .add(r);
                }
            }
        }
        List<RunResult> results = new ArrayList<>();
        for (List<RunResult> pair : runs.values()) {
            results.add(pair.stream()
                    .filter(r -> !r.ok() || r.violations() > 0)
                    .findFirst()
                    .orElseGet(() -> median(pair)));
        }
        return results;
    }

    private static RunResult median(List<RunResult> runs) {
        List<RunResult> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingDouble(RunResult::opsPerSecond));
        return sorted.get((sorted.size() - 1) / 2);
    }

    RunResult run(Scenario scenario, Library library) {
        try {
            admin.flushall();
            return scenario == Scenario.CONTENDED_PROCESSES ? inChildren(library) : inProcess(scenario, library);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RunResult.failed(scenario, library, e);
        } catch (RuntimeException e) {
            return RunResult.failed(scenario, library, e);
        }
    }

    private RunResult inProcess(Scenario scenario, Library library) throws InterruptedException {
        List<String> keys = switch (scenario) {
            case UNCONTENDED_SINGLE -> List.of("bench-key-0");
            case UNCONTENDED_THREADS ->
                IntStream.range(0, config.threads())
                        .mapToObj(i -> "bench-key-" + i)
                        .toList();
            case CONTENDED_THREADS -> Collections.nCopies(config.threads(), SHARED_KEY);
            case CONTENDED_PROCESSES -> throw new IllegalArgumentException("runs in child JVMs");
        };
        try (LockProvider provider = library.open(redis.host(), redis.port())) {
            Workload.prime(provider, "bench-prime");
            Sampler redisCounters = new Sampler();
            Workload.Outcome o =
                    Workload.run(provider, keys, Occupancy.local(), config.warmup(), config.measure(), redisCounters);
            return RunResult.of(scenario, library, o.opsPerSecond(), o, redisCounters.before, redisCounters.after);
        }
    }

    /**
     * Scenario 4: every child JVM opens its own client and runs its threads on the shared key;
     * this JVM only coordinates, so it takes no part in the contention.
     */
    private RunResult inChildren(Library library) throws InterruptedException {
        List<String> args = List.of(
                "library=" + library.id,
                "host=" + redis.host(),
                "port=" + redis.port(),
                "key=" + SHARED_KEY,
                "threads=" + config.processThreads(),
                "warmupMs=" + config.processWarmup().toMillis(),
                "measureMs=" + config.measure().toMillis());
        List<ChildJvm> children = new ArrayList<>();
        try {
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
            Thread.sleep(config.measure().toMillis());
            CommandStats.Snapshot after = CommandStats.snapshot(admin);
            Duration resultTimeout = Workload.STUCK_AFTER.plusSeconds(60);
            List<Workload.Outcome> outcomes = new ArrayList<>();
            for (ChildJvm child : children) {
                outcomes.add(ChildProcess.decode(child.await(ChildProcess.RESULT, resultTimeout)));
            }
            LatencyHistogram latency = new LatencyHistogram();
            long total = 0;
            long measured = 0;
            long violations = 0;
            long cpu = 0;
            double opsPerSecond = 0;
            String error = null;
            for (Workload.Outcome o : outcomes) {
                latency.add(o.latency());
                total += o.totalOps();
                measured += o.measuredOps();
                violations += o.violations();
                cpu = cpu < 0 || o.cpuNanos() < 0 ? -1 : cpu + o.cpuNanos();
                // Each child timed its own window; their rates add up.
                opsPerSecond += o.opsPerSecond();
                error = error != null ? error : o.error();
            }
            Workload.Outcome merged = new Workload.Outcome(total, measured, violations, 0, cpu, latency, error);
            return RunResult.of(Scenario.CONTENDED_PROCESSES, library, opsPerSecond, merged, before, after);
        } finally {
            long closing = System.nanoTime();
            children.forEach(ChildJvm::close);
            log.printf("[children closed in %.1f s] ", (System.nanoTime() - closing) / 1e9);
        }
    }

    /** Samples the Redis counters as the in-process window opens and closes. */
    private final class Sampler implements Workload.Window {
        private CommandStats.Snapshot before;
        private CommandStats.Snapshot after;

        @Override
        public void opened() {
            before = CommandStats.snapshot(admin);
        }

        @Override
        public void closed() {
            after = CommandStats.snapshot(admin);
        }
    }

    @Override
    public void close() {
        adminConnection.close();
        adminClient.shutdown();
    }
}
