package dev.distlock.benchmark;

import dev.distlock.testsupport.RedisServer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Compares distlock's RedisLock with Redisson's RLock and Spring Integration's RedisLockRegistry
 * on one redis-server that it starts itself. See {@link BenchmarkConfig} for the settings.
 *
 * <pre>
 * ./mvnw -q -B -pl lock-benchmarks -am package -DskipTests &amp;&amp; java -jar lock-benchmarks/target/lock-benchmarks.jar
 * </pre>
 *
 * <p>{@code java -jar lock-benchmarks.jar script-costs} instead times the lock scripts inside Redis
 * (see {@link ScriptCosts}).
 *
 * <p>Exits with 1 when a run failed, saw a mutual-exclusion violation, a fair lock's grant out of
 * arrival order or a lost hold, so scripts can rely on it.
 */
public final class LockBenchmark {

    private LockBenchmark() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals(ChildProcess.FLAG)) {
            ChildProcess.main(Arrays.copyOfRange(args, 1, args.length));
            System.exit(0); // library threads (pools, schedulers) must not keep a finished child alive
            return;
        }
        if (args.length > 0 && args[0].equals(ForkedRun.FLAG)) {
            ForkedRun.main(Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
            return;
        }
        if (args.length > 0 && args[0].equals(SemaphoreBenchmark.COMMAND)) {
            System.exit(SemaphoreBenchmark.main(Arrays.copyOfRange(args, 1, args.length), System.out));
            return;
        }
        if (args.length > 0 && args[0].equals(HandOffPingPong.FLAG)) {
            HandOffPingPong.childMain(Arrays.copyOfRange(args, 1, args.length));
            System.exit(0);
            return;
        }
        if (args.length > 0 && args[0].equals(HandOffBenchmark.COMMAND)) {
            System.exit(HandOffBenchmark.main(Arrays.copyOfRange(args, 1, args.length), System.out));
            return;
        }
        if (args.length > 0 && args[0].equals(ScriptCosts.COMMAND)) {
            System.exit(ScriptCosts.main(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
            return;
        }
        BenchmarkConfig config = configOrExplain(args, System.err);
        if (config == null) {
            System.exit(2);
            return;
        }
        Results outcome = run(config, System.out);
        System.out.println();
        System.out.println(outcome.markdown());
        System.out.println("Written to " + config.output().toAbsolutePath().normalize());
        boolean clean =
                outcome.results().stream().allMatch(r -> r.ok() && r.violations() == 0 && r.orderViolations() <= 0);
        System.exit(clean ? 0 : 1);
    }

    /**
     * The settings {@code args} give, or {@code null} after telling {@code err} what is wrong with them
     * (one line naming the setting and the fix, not a stack trace).
     */
    static BenchmarkConfig configOrExplain(String[] args, PrintStream err) {
        try {
            return BenchmarkConfig.fromSystemPropertiesAndArgs(args);
        } catch (IllegalArgumentException e) {
            err.println("lock-benchmarks: " + e.getMessage());
            return null;
        }
    }

    /** Everything one run produced. */
    record Results(List<RunResult> results, String markdown) {}

    /** Runs the benchmark, writes the Markdown report to {@code config.output()} and returns it. */
    static Results run(BenchmarkConfig config, PrintStream progress) throws Exception {
        long start = System.nanoTime();
        try (RedisServer redis = RedisServer.start();
                BenchmarkRunner runner = new BenchmarkRunner(config, redis, progress)) {
            String version = runner.redisVersion();
            progress.printf(
                    "redis-server %s on port %d; warm-up %d ms (round 1: %d ms; child JVMs %d ms), measured %d ms per run%n",
                    version,
                    redis.port(),
                    config.warmup().toMillis(),
                    config.warmup(1).toMillis(),
                    config.processWarmup().toMillis(),
                    config.measure().toMillis());
            List<RunResult> results = runner.runAll();
            String md = Report.markdown(config, version, results, Duration.ofNanos(System.nanoTime() - start));
            Report.write(config.output(), md);
            return new Results(results, md);
        }
    }
}
