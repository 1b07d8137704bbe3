package dev.distlock.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;

/**
 * Settings of one benchmark run. Each can be given as a system property {@code -Dbench.NAME=VALUE}
 * or as an argument {@code NAME=VALUE} (arguments win), for example
 * {@code java -jar lock-benchmarks.jar warmup=2s measure=5s libraries=distlock,redisson scenarios=1,3}.
 *
 * @param warmup untimed running before each measured window (JIT, connection pools, script cache)
 * @param firstWarmup the same in round 1, and in every forked run, where each library runs its code paths
 *        of a scenario for the first time: the JIT needs several seconds to compile them, and a library
 *        with more code on its path takes longer to reach its steady speed, so a short first warm-up
 *        would measure compilation rather than the library (never shorter than {@code warmup}). A forked
 *        run needs more: in two-round runs of scenario 2 alone, forked distlock measured 0.71 of the raw
 *        floor's ops/s after 8 s (its client CPU per op 110 µs, the JIT still compiling) and 0.95 after
 *        20 s (76 µs); a full forked run with 20 s measured 0.62 (0.61-0.89 over three rounds)
 * @param processWarmup the same for scenario 4, whose child JVMs start cold: with two of them
 *        compiling on a small machine, a few seconds leave them far from steady state
 * @param measure the measured window of each scenario and library
 * @param rounds how often every scenario and library is run, libraries interleaved; the report
 *        shows each one's median run, so one noisy moment on a shared machine cannot decide a ratio
 * @param threads threads of scenarios 2, 3, 5 and 11 (which has as many keys on each of its three masters)
 * @param processes child JVMs of scenario 4
 * @param processThreads threads per child JVM in scenario 4
 * @param libraries which libraries to run, in report order
 * @param scenarios which scenarios to run
 * @param heldLocks locks held on one client in the held-locks scenario
 * @param heldLease watchdog lease of the held-locks scenario (distlock and Redisson both default to
 *        30 s and renew every third of it); its window lasts five sixths of it, so every held lock is
 *        renewed at least twice inside the window
 * @param asyncCallers concurrent callers of the async and reactive scenarios
 * @param asyncThreads threads that start the async callers' operations (the libraries' own I/O
 *        threads do the rest)
 * @param fairSlack how much earlier than a new holder another waiter must have asked for the grant to
 *        count as out of arrival order (see {@link ArrivalOrder})
 * @param childJvmOptions extra JVM options of the child JVMs (space separated), for example
 *        {@code -Xmx512m}; none by default, so children run as plain as this JVM
 * @param fork whether every run of an in-process scenario (all but 4 and 6) gets a JVM of its own, as
 *        JMH forks, so that no library runs with the JIT profile, threads or garbage another one left in
 *        the JVM; give it {@code firstWarmup=20s} or more and {@code childJvmOptions=-Xms256m -Xmx256m
 *        -Xmn64m -XX:+AlwaysPreTouch}: a fresh JVM's own heap sizing (G1 shrinking its first, larger heap
 *        12-15 s after the start) otherwise puts young pauses of 17-30 ms inside the window, which slow
 *        the fair lock by a fifth and reorder its arrival stamps (the stamp precedes the request). Off by
 *        default: on this 2-core machine forked runs were noisier, not truer. Two forked runs of the very
 *        same raw floor differed by 0.82 (0.77-1.08 over three rounds, 40 s warm-ups) against 0.96
 *        (0.91-0.97) in one JVM, and the ratios between libraries agreed with the in-process ones
 *        (distlock/raw floor 0.84 forked against 0.82, fair distlock/Redisson 8.4 against 8.3)
 * @param output where the Markdown report is written
 */
record BenchmarkConfig(
        Duration warmup,
        Duration firstWarmup,
        Duration processWarmup,
        Duration measure,
        int rounds,
        int threads,
        int processes,
        int processThreads,
        List<Library> libraries,
        List<Scenario> scenarios,
        int heldLocks,
        Duration heldLease,
        int asyncCallers,
        int asyncThreads,
        Duration fairSlack,
        List<String> childJvmOptions,
        boolean fork,
        Path output) {

    BenchmarkConfig {
        if (measure.isZero()) {
            throw new IllegalArgumentException("measure must be longer than zero: it divides the op count");
        }
        if (heldLease.compareTo(Duration.ofMillis(300)) < 0) {
            throw new IllegalArgumentException(
                    "heldLease must be at least 300ms (both libraries renew every third of it), got " + heldLease);
        }
    }

    /** Names accepted as arguments / {@code bench.}-properties, with their defaults. */
    static final Map<String, String> DEFAULTS = Map.ofEntries(
            Map.entry("warmup", "2s"),
            Map.entry("firstWarmup", "8s"),
            Map.entry("processWarmup", "10s"),
            Map.entry("measure", "4s"),
            Map.entry("rounds", "3"),
            Map.entry("threads", "8"),
            Map.entry("processes", "2"),
            Map.entry("processThreads", "4"),
            Map.entry(
                    "libraries",
                    "distlock,distlock-publish,raw,raw-again,raw-scripts,redisson,redisson-epoll,spring-spin,spring-pubsub"),
            Map.entry("scenarios", "1,2,3,4,5,6,7,8,9,10,11"),
            Map.entry("heldLocks", "100000"),
            Map.entry("heldLease", "30s"),
            Map.entry("asyncCallers", "64"),
            Map.entry("asyncThreads", "2"),
            Map.entry("fairSlack", "10ms"),
            Map.entry("childJvmOptions", ""),
            Map.entry("fork", "false"));

    /** The warm-up of the in-process runs of {@code round} (1 for the first); a forked run starts cold every time. */
    Duration warmup(int round) {
        return (round == 1 || fork) && firstWarmup.compareTo(warmup) > 0 ? firstWarmup : warmup;
    }

    /**
     * These settings as {@code NAME=VALUE} arguments, but for one scenario and library: what a forked
     * run is started with, so that it reads the same settings as this JVM.
     */
    List<String> forRun(Scenario scenario, Library library) {
        return List.of(
                "warmup=" + warmup.toMillis() + "ms",
                "firstWarmup=" + firstWarmup.toMillis() + "ms",
                "processWarmup=" + processWarmup.toMillis() + "ms",
                "measure=" + measure.toMillis() + "ms",
                "rounds=" + rounds,
                "threads=" + threads,
                "processes=" + processes,
                "processThreads=" + processThreads,
                "libraries=" + library.id,
                "scenarios=" + scenario.id,
                "heldLocks=" + heldLocks,
                "heldLease=" + heldLease.toMillis() + "ms",
                "asyncCallers=" + asyncCallers,
                "asyncThreads=" + asyncThreads,
                "fairSlack=" + fairSlack.toMillis() + "ms",
                "childJvmOptions=" + String.join(" ", childJvmOptions),
                "fork=" + fork,
                "output=" + output);
    }

    /** The held-locks scenario's window: at least two renewals of every held lock (one per third of the lease). */
    Duration heldWindow() {
        Duration twoRounds = heldLease.multipliedBy(5).dividedBy(6);
        return twoRounds.compareTo(measure) > 0 ? twoRounds : measure;
    }

    static BenchmarkConfig fromSystemPropertiesAndArgs(String... args) {
        Map<String, String> values = new HashMap<>(DEFAULTS);
        Properties sys = System.getProperties();
        for (String name : sys.stringPropertyNames()) {
            if (name.startsWith("bench.")) {
                values.put(known(name.substring("bench.".length())), sys.getProperty(name));
            }
        }
        for (String arg : args) {
            String a = arg.startsWith("--") ? arg.substring(2) : arg;
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("Argument '" + arg + "' is not NAME=VALUE; names: "
                        + new TreeSet<>(DEFAULTS.keySet()) + ", output");
            }
            values.put(known(a.substring(0, eq)), a.substring(eq + 1));
        }
        return new BenchmarkConfig(
                duration(values.get("warmup"), "warmup"),
                duration(values.get("firstWarmup"), "firstWarmup"),
                duration(values.get("processWarmup"), "processWarmup"),
                duration(values.get("measure"), "measure"),
                positive(values.get("rounds"), "rounds"),
                positive(values.get("threads"), "threads"),
                positive(values.get("processes"), "processes"),
                positive(values.get("processThreads"), "processThreads"),
                Arrays.stream(values.get("libraries").split(","))
                        .map(Library::byId)
                        .distinct()
                        .toList(),
                Arrays.stream(values.get("scenarios").split(","))
                        .map(Scenario::byId)
                        .distinct()
                        .sorted()
                        .toList(),
                positive(values.get("heldLocks"), "heldLocks"),
                duration(values.get("heldLease"), "heldLease"),
                positive(values.get("asyncCallers"), "asyncCallers"),
                positive(values.get("asyncThreads"), "asyncThreads"),
                duration(values.get("fairSlack"), "fairSlack"),
                Arrays.stream(values.get("childJvmOptions").trim().split("\\s+"))
                        .filter(o -> !o.isEmpty())
                        .toList(),
                bool(values.get("fork"), "fork"),
                values.containsKey("output") ? Path.of(values.get("output")) : defaultOutput());
    }

    /**
     * {@code lock-benchmarks/target/benchmark-results.md} when started from the repository root
     * (the documented command), {@code target/...} when started inside the module.
     */
    static Path defaultOutput() {
        for (Path dir : List.of(Path.of("lock-benchmarks", "target"), Path.of("target"))) {
            if (Files.isDirectory(dir)) {
                return dir.resolve("benchmark-results.md");
            }
        }
        return Path.of("benchmark-results.md");
    }

    private static String known(String name) {
        if (!DEFAULTS.containsKey(name) && !name.equals("output")) {
            throw new IllegalArgumentException(
                    "Unknown setting '" + name + "'; known: " + new TreeSet<>(DEFAULTS.keySet()) + ", output");
        }
        return name;
    }

    /** {@code 500ms}, {@code 3s}, {@code 1m} or an ISO-8601 duration such as {@code PT2S}. */
    static Duration duration(String text, String name) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            Duration d;
            if (t.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            } else if (t.endsWith("s")) {
                d = Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1)) * 1000));
            } else if (t.endsWith("m")) {
                d = Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)) * 60);
            } else {
                d = Duration.parse(text.trim().toUpperCase(Locale.ROOT));
            }
            if (d.isNegative()) {
                throw new IllegalArgumentException(name + " must not be negative: " + text);
            }
            return d;
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    name + " '" + text + "' is not a duration like 500ms, 3s, 1m or PT2S", e);
        }
    }

    private static boolean bool(String text, String name) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (!t.equals("true") && !t.equals("false")) {
            throw new IllegalArgumentException(name + " must be true or false: " + text);
        }
        return t.equals("true");
    }

    private static int positive(String text, String name) {
        int n = Integer.parseInt(text.trim());
        if (n < 1) {
            throw new IllegalArgumentException(name + " must be at least 1: " + text);
        }
        return n;
    }
}
