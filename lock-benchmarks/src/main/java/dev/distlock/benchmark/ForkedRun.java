package dev.distlock.benchmark;

import dev.distlock.core.internal.redis.ClientShutdown;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One run of an in-process scenario in a JVM of its own ({@link BenchmarkConfig#fork()}), so that no
 * library runs with the JIT profile, threads or garbage of the libraries before it. The parent starts
 * the child with the run's settings as arguments and reads one line from its stdout: {@code RUN}, its
 * process id, the Redis counters as the window opened and closed and the encoded {@link Outcome}, or
 * {@code RUN-FAILED} and the reason. The child samples the counters itself (the parent is idle meanwhile), and its client
 * CPU is its own process's.
 */
final class ForkedRun {

    static final String FLAG = "--run";
    private static final String RUN = "RUN";
    private static final String FAILED = "RUN-FAILED";

    private ForkedRun() {}

    /** What a forked run reported, and the process id of the JVM it ran in. */
    record Forked(RunResult result, long pid) {}

    /** The parent's side: runs {@code scenario} for {@code library} in a new JVM and waits for its result. */
    static Forked inChild(
            BenchmarkConfig config, Scenario scenario, Library library, String host, int port, PrintStream log)
            throws InterruptedException {
        List<String> args = new ArrayList<>(List.of(host, Integer.toString(port)));
        args.addAll(config.forRun(scenario, library));
        // Starting a JVM and a library takes seconds on a loaded machine; a stuck run is reported by its
        // own watchdog (Workload.STUCK_AFTER) before this bound.
        Duration bound = config.warmup(1)
                .plus(config.measure())
                .plus(Workload.STUCK_AFTER)
                .plusSeconds(120);
        try (ChildJvm child = ChildJvm.start("run", FLAG, config.childJvmOptions(), args, log)) {
            String line = child.await(RUN, bound);
            if (line.startsWith(FAILED)) {
                throw new IllegalStateException(line.substring(FAILED.length()).trim());
            }
            String[] words = line.split(" ", 5);
            BenchmarkRunner.Measured m = new BenchmarkRunner.Measured(
                    Outcome.decode(words[4]),
                    CommandStats.Snapshot.decode(words[2]),
                    CommandStats.Snapshot.decode(words[3]));
            return new Forked(m.result(scenario, library), Long.parseLong(words[1]));
        }
    }

    /** The child's side: {@code host port NAME=VALUE...}, one scenario and one library among the settings. */
    static void main(String[] args) throws Exception {
        PrintStream out = ChildJvm.protocolChannel();
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        BenchmarkConfig config = BenchmarkConfig.fromSystemPropertiesAndArgs(Arrays.copyOfRange(args, 2, args.length));
        RedisClient client = RedisClient.create(RedisURI.create(host, port));
        try (StatefulRedisConnection<String, String> admin = client.connect()) {
            BenchmarkRunner.Measured m = BenchmarkRunner.measure(
                    config,
                    config.scenarios().get(0),
                    config.libraries().get(0),
                    host,
                    port,
                    admin.sync(),
                    config.warmup(1));
            out.println(String.join(
                    " ",
                    RUN,
                    Long.toString(ProcessHandle.current().pid()),
                    m.before().encode(),
                    m.after().encode(),
                    m.outcome().encode()));
        } catch (Exception | LinkageError e) {
            out.println(FAILED + " " + String.valueOf(e).replace('\n', ' '));
        } finally {
            ClientShutdown.shutdown(client);
        }
    }
}
