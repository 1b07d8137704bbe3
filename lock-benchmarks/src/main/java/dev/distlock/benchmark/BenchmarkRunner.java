package dev.distlock.benchmark;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.api.sync.RedisServerCommands;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.locks.Lock;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * Runs every selected scenario for every selected library against one Redis, one run at a time,
 * with the keyspace flushed before each run so no library inherits another's keys.
 */
final class BenchmarkRunner implements AutoCloseable {

    static final String SHARED_KEY = "bench-key-shared";

    private final BenchmarkConfig config;
    private final RedisServer redis;
    private final PrintStream log;
    private final RedisClient adminClient;
    private final StatefulRedisConnection<String, String> adminConnection;
    private final RedisCommands<String, String> admin;
    /** Scenario 11's Redis Cluster, started when it first runs. */
    private ClusterRun cluster;

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
        return redisVersion(admin.info("server"));
    }

    /** {@code redis_version} in the text of {@code INFO server}, or {@code ?}. */
    static String redisVersion(String infoServer) {
        for (String line : infoServer.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "?";
    }

    /**
     * Runs every scenario and library {@code rounds} times, libraries interleaved within a round (a
     * library without what a scenario needs is left out of it), and returns every run in run order.
     * Every other round runs the libraries in reverse order, so that no library always runs first
     * (on a cold machine) or always right after the same neighbour.
     */
    List<RunResult> runAll() {
        List<RunResult> runs = new ArrayList<>();
        for (int round = 1; round <= config.rounds(); round++) {
            List<Library> order = libraryOrder(config.libraries(), round);
            for (Scenario scenario : config.scenarios()) {
                for (Library library : order) {
                    if (!scenario.runsWith(library)) {
                        continue;
                    }
                    log.printf(
                            "[%d/%d] %-45s %-26s ... ", round, config.rounds(), scenario.label(config), library.label);
                    long start = System.nanoTime();
                    RunResult r = run(scenario, library, round);
                    log.printf(
                            "%,.0f ops/s, p50 %s, p99 %s, max %s, %d violations%s%s (%.1f s)%n",
                            r.opsPerSecond(),
                            Report.millis(r.p50Nanos()),
                            Report.millis(r.p99Nanos()),
                            Report.millis(r.maxNanos()),
                            r.violations(),
                            r.held() == null
                                    ? ""
                                    : String.format(
                                            ", %.0f B heap/hold, %d lost",
                                            r.held().heapBytesPerHold(),
                                            r.held().lost()),
                            r.ok() ? "" : ", FAILED: " + r.error(),
                            (System.nanoTime() - start) / 1e9);
                    runs.add(r);
                }
            }
        }
        return runs;
    }

    /** The libraries as given in odd rounds, reversed in even ones. */
    static List<Library> libraryOrder(List<Library> libraries, int round) {
        if (round % 2 == 1) {
            return libraries;
        }
        List<Library> reversed = new ArrayList<>(libraries);
        Collections.reverse(reversed);
        return reversed;
    }

    RunResult run(Scenario scenario, Library library, int round) {
        try {
            admin.flushall();
            return switch (scenario) {
                case CONTENDED_PROCESSES -> new ContendedProcesses(config, redis, admin, log).run(library);
                case HELD_LOCKS -> new HeldLocks(config, admin).run(library, redis.host(), redis.port());
                case CLUSTER_CONTENDED -> cluster().run(config, library, config.warmup(round));
                default ->
                    config.fork()
                            ? ForkedRun.inChild(config, scenario, library, redis.host(), redis.port(), log)
                                    .result()
                            : inProcess(scenario, library, config.warmup(round));
            };
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return RunResult.failed(scenario, library, e);
        } catch (RuntimeException e) {
            return RunResult.failed(scenario, library, e);
        }
    }

    private RunResult inProcess(Scenario scenario, Library library, Duration warmup) throws InterruptedException {
        return measure(config, scenario, library, redis.host(), redis.port(), admin, warmup)
                .result(scenario, library);
    }

    /** What one in-process run measured: its outcome and the Redis counters as its window opened and closed. */
    record Measured(Outcome outcome, CommandStats.Snapshot before, CommandStats.Snapshot after) {
        RunResult result(Scenario scenario, Library library) {
            return RunResult.of(scenario, library, outcome, List.of(), before, after, null);
        }
    }

    /**
     * One run of an in-process scenario in this JVM, whether the benchmark's own or a forked one
     * ({@link ForkedRun}): {@code admin} samples the Redis counters as the window opens and closes.
     */
    static Measured measure(
            BenchmarkConfig config,
            Scenario scenario,
            Library library,
            String host,
            int port,
            RedisServerCommands<String, String> admin,
            Duration warmup)
            throws InterruptedException {
        int workers = switch (scenario) {
            case UNCONTENDED_SINGLE -> 1;
            case UNCONTENDED_THREADS, CONTENDED_THREADS, FAIR_CONTENDED -> config.threads();
            default -> config.asyncCallers();
        };
        List<String> keys = scenario.contended()
                ? Collections.nCopies(workers, SHARED_KEY)
                : IntStream.range(0, workers).mapToObj(i -> "bench-key-" + i).toList();
        Occupancy occupancy = Occupancy.local(workers);
        // Slots and locks are made before the start signal so set-up cost stays out of the loop.
        List<Occupancy.Slot> slots = keys.stream().map(occupancy::slot).toList();
        try (LockProvider provider = library.open(host, port, Library.DEFAULT_LEASE)) {
            CommandStats.Sampler redisCounters = new CommandStats.Sampler(admin);
            Outcome o;
            if (scenario.async()) {
                boolean reactive = scenario == Scenario.REACTIVE_CONTENDED || scenario == Scenario.REACTIVE_UNCONTENDED;
                BiFunction<String, Long, LockProvider.AsyncCycle> cycle =
                        reactive ? provider::reactiveCycle : provider::asyncCycle;
                Workload.prime(cycle.apply("bench-prime", Occupancy.Holders.of(workers)));
                List<LockProvider.AsyncCycle> cycles = IntStream.range(0, workers)
                        .mapToObj(i -> cycle.apply(keys.get(i), Occupancy.Holders.of(i)))
                        .toList();
                o = Workload.callers(cycles, slots, config.asyncThreads(), warmup, config.measure(), redisCounters);
            } else {
                boolean fair = scenario == Scenario.FAIR_CONTENDED;
                Function<String, Lock> lock = fair ? provider::fairLock : provider::lock;
                Workload.prime(lock.apply("bench-prime"));
                List<Lock> locks = keys.stream().map(lock).toList();
                try (Stalls stalls = fair ? new Stalls() : null) {
                    ArrivalOrder order = fair ? new ArrivalOrder(workers, config.fairSlack(), stalls) : null;
                    o = Workload.threads(locks, slots, order, warmup, config.measure(), redisCounters);
                }
            }
            return new Measured(o, redisCounters.before, redisCounters.after);
        }
    }

    private ClusterRun cluster() {
        if (cluster == null) {
            cluster = ClusterRun.start();
        }
        return cluster;
    }

    @Override
    public void close() {
        if (cluster != null) {
            cluster.close();
        }
        adminConnection.close();
        ClientShutdown.shutdown(adminClient);
    }
}
