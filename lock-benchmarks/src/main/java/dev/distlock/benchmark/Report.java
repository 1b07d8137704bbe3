package dev.distlock.benchmark;

import dev.distlock.core.LockClientOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.function.DoubleFunction;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Renders every run as Markdown: each figure is the median over the rounds with the lowest and
 * highest round in brackets. Tables: throughput and latency; fairness and hand-off; held locks;
 * distlock relative to each peer (per-round ratios); cost per op.
 */
final class Report {

    private final BenchmarkConfig config;
    private final List<RunResult> runs;
    private final StringBuilder md = new StringBuilder();

    private Report(BenchmarkConfig config, List<RunResult> runs) {
        this.config = config;
        this.runs = runs;
    }

    static String markdown(BenchmarkConfig config, String redisVersion, List<RunResult> runs, Duration took) {
        Report r = new Report(config, runs);
        r.header(redisVersion, took);
        r.throughput();
        r.fairness();
        r.held();
        r.ratios();
        r.cost();
        ClusterSection.append(r.md, config, runs);
        r.failures();
        return r.md.toString();
    }

    private void header(String redisVersion, Duration took) {
        md.append("# distlock benchmark\n\n");
        String warmups = config.fork()
                ? String.format(
                        Locale.ROOT,
                        "every run of scenarios 1-3, 5 and 7-10 in a JVM of its own (forked, so that no library inherits "
                                + "another's JIT profile, threads or garbage), warm-up %s there as the JIT starts cold "
                                + "(scenario 4's child JVMs: %s)",
                        seconds(config.warmup(1)),
                        seconds(config.processWarmup()))
                : String.format(
                        Locale.ROOT,
                        "every run in this JVM, warm-up %s (round 1, where the JIT compiles each library's paths: %s; "
                                + "scenario 4's fresh child JVMs: %s)",
                        seconds(config.warmup()),
                        seconds(config.warmup(1)),
                        seconds(config.processWarmup()));
        md.append(String.format(
                Locale.ROOT,
                "Redis %s on 127.0.0.1 started by the benchmark; %d CPUs; Java %s; %s, measured %s per run (scenario 6: "
                        + "%s, at least two renewals of every held lock with a %s lease); %d rounds, libraries interleaved "
                        + "in each, in reverse order every other round; run took %.0f s.%n%n",
                redisVersion,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                warmups,
                seconds(config.measure()),
                seconds(config.heldWindow()),
                seconds(config.heldLease()),
                config.rounds(),
                took.toMillis() / 1000.0));
        md.append("Libraries, each with its defaults: distlock ")
                .append(version("dev.distlock", "distlock-core", "dev.distlock.core.LockClient"))
                .append(" (RedisLock with the watchdog lease; lock cohorting on by default, up to "
                        + LockClientOptions.DEFAULT_LOCAL_HAND_OFFS + " local hand-offs within "
                        + LockClientOptions.DEFAULT_LOCAL_HAND_OFF_WINDOW.toMillis() + " ms of a grant in Redis;"
                        + " Lettuce on Netty's epoll transport, whose jar the benchmark has), Redisson ")
                .append(version("org.redisson", "redisson", "org.redisson.Redisson"))
                .append(
                        " (RLock.lock() without lease time; default NIO transport, and `TransportMode.EPOLL` as \"Redisson EPOLL\"), "
                                + "Spring Integration ")
                .append(version(
                        "org.springframework.integration",
                        "spring-integration-redis",
                        "org.springframework.integration.redis.util.RedisLockRegistry"))
                .append(" (RedisLockRegistry with its default expiry, in its default SPIN lock type and in PUB_SUB). "
                        + "RedisLockRegistry has no fair, async or reactive locks, so it is not in scenarios 5-10. "
                        + "The raw floor is not a lock: one EVALSHA taking a key (SET NX PX) and one deleting it, "
                        + "Lettuce's sync API on one connection, in scenarios 1 and 2 only; \"raw floor again\" is the same "
                        + "code run once more beside it, an A/A comparison that shows how far two runs of identical code "
                        + "differ within a round.\n\n");
        md.append(
                "One op = lock; occupancy check; unlock, timed as a whole (async and reactive: from the call to the confirmed "
                        + "release). Each cell is the median over the rounds with the lowest and highest round in brackets. "
                        + "Violations: a holder found someone else inside, summed over the rounds; the check is a counter in "
                        + "shared memory (a memory-mapped file for the child JVMs of scenario 4), so it costs no Redis command.\n\n");
    }

    private void throughput() {
        md.append("Redis CPU: user + system time of redis-server (of every master in scenario 11) over the measured "
                + "window, per op, beside the ops/s it bought: in production Redis is the shared limit.\n\n");
        md.append("| scenario | library | ops/s | Redis CPU µs/op | p50 ms | p99 ms | p999 ms | violations |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (Scenario s : config.scenarios()) {
            for (Library l : libraries(s)) {
                List<RunResult> rs = runs(s, l);
                md.append("| ")
                        .append(s.label(config))
                        .append(" | ")
                        .append(labelWithFailures(l, rs))
                        .append(" | ");
                md.append(cell(rs, RunResult::opsPerSecond, Spread::ops)).append(" | ");
                md.append(cell(rs, RunResult::redisCpuMicrosPerOp, Spread::oneDecimal))
                        .append(" | ");
                md.append(cell(rs, r -> r.p50Nanos(), Spread::ms)).append(" | ");
                md.append(cell(rs, r -> r.p99Nanos(), Spread::ms)).append(" | ");
                md.append(cell(rs, r -> r.p999Nanos(), Spread::ms)).append(" | ");
                md.append(rs.stream().mapToLong(RunResult::violations).sum()).append(" |\n");
            }
        }
    }

    private void fairness() {
        List<Scenario> shared = config.scenarios().stream()
                .filter(s -> s != Scenario.UNCONTENDED_SINGLE && s != Scenario.HELD_LOCKS)
                .toList();
        if (shared.isEmpty()) {
            return;
        }
        md.append("\n## Fairness and hand-off\n\n");
        md.append(
                        "Thread share: measured ops of the least served worker (thread or async caller) divided by those of the "
                                + "most served one (1 = even). Worst worker p99: the highest p99 of any one worker over its own ops; "
                                + "where workers take turns unevenly the pooled p99 is mostly of the busy workers' ops, and this is the "
                                + "tail a starved worker saw. JVM share: the smallest fraction of all grants that one JVM got. Hand-off: "
                                + "from a holder's release (stamped just before its unlock call) to the grant of a holder that was already "
                                + "waiting then (stamped when its lock call returned); per op, how many grants were such hand-offs rather "
                                + "than re-takes by the releasing worker. Cross-JVM hand-offs are those between the child JVMs of scenario 4: "
                                + "`System.nanoTime` is `CLOCK_MONOTONIC` on Linux, one clock for every process of the machine, so a release "
                                + "stamped in one JVM and a grant stamped in the other can be subtracted. Redis RTT: the median round "
                                + "trip of a PING sent every 2 ms from the coordinating JVM while the children run, so under the same "
                                + "load; the cross-JVM hand-off p50 is also given in those round trips (per round, then median). "
                                + "Order violations (fair locks): "
                                + "grants to a thread that asked more than ")
                .append(config.fairSlack().toMillis())
                .append(
                        " ms after another thread that was still waiting, summed over the rounds; \"undecided\": such grants "
                                + "whose lead over the passed thread, beyond those ms, falls within a stall of the whole JVM (two ticker "
                                + "threads both late), when the passed thread's request may have gone out after the other's.\n\n");
        md.append(
                "| scenario | library | thread share | worst worker p99 ms | JVM share | hand-offs/op | hand-off p50 ms | hand-off p99 ms "
                        + "| cross-JVM hand-off p50 ms | cross-JVM hand-off p99 ms | Redis RTT p50 ms | cross-JVM hand-off p50 "
                        + "in RTTs | order violations |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Scenario s : shared) {
            for (Library l : libraries(s)) {
                List<RunResult> rs = ok(runs(s, l));
                if (rs.isEmpty()) {
                    continue;
                }
                boolean handOffs = s.contended();
                boolean remote = s == Scenario.CONTENDED_PROCESSES;
                long order = rs.stream().mapToLong(RunResult::orderViolations).sum();
                long undecided =
                        rs.stream().mapToLong(RunResult::orderUndecided).sum();
                md.append("| ")
                        .append(s.label(config))
                        .append(" | ")
                        .append(l.label)
                        .append(" | ");
                md.append(cell(rs, RunResult::threadShare, Spread::twoDecimals)).append(" | ");
                md.append(cell(rs, RunResult::worstWorkerP99Nanos, Spread::ms)).append(" | ");
                md.append(cell(rs, RunResult::jvmShare, Spread::twoDecimals)).append(" | ");
                md.append(handOffs ? cell(rs, RunResult::handOffsPerOp, Spread::twoDecimals) : "-")
                        .append(" | ");
                md.append(handOffs ? cell(rs, RunResult::handOffP50Nanos, Spread::ms) : "-")
                        .append(" | ");
                md.append(handOffs ? cell(rs, RunResult::handOffP99Nanos, Spread::ms) : "-")
                        .append(" | ");
                md.append(remote ? cell(rs, RunResult::remoteHandOffP50Nanos, Spread::ms) : "-")
                        .append(" | ");
                md.append(remote ? cell(rs, RunResult::remoteHandOffP99Nanos, Spread::ms) : "-")
                        .append(" | ");
                md.append(remote ? cell(rs, RunResult::roundTripP50Nanos, Spread::ms) : "-")
                        .append(" | ");
                md.append(remote ? cell(rs, RunResult::remoteHandOffRoundTrips, Spread::oneDecimal) : "-")
                        .append(" | ");
                md.append(
                                s == Scenario.FAIR_CONTENDED
                                        ? order + (undecided > 0 ? " (" + undecided + " undecided)" : "")
                                        : "-")
                        .append(" |\n");
            }
        }
    }

    private void held() {
        if (!config.scenarios().contains(Scenario.HELD_LOCKS)) {
            return;
        }
        md.append("\n## Held locks\n\n");
        md.append(String.format(
                Locale.ROOT,
                "%,d watchdog locks taken (%d calls in flight) and held on one client, then one thread of the same "
                        + "client locks and unlocks a free key for %s: its latency is how long an ordinary lock call waits "
                        + "behind renewal traffic. Heap per hold: used heap after GC, with the holds minus without, divided by "
                        + "their number (what the library hands out to release them included). Lost holds: lease-lost events "
                        + "(distlock's LockListener), held keys gone from Redis after the window, or releases refused "
                        + "afterwards, whichever is most; summed over the rounds, and all false, as nothing else touches those "
                        + "keys. Longest GC pause: the longest garbage-collection pause of the benchmark JVM that started within "
                        + "the window; a probe call that waited about as long (max) stood still with the whole JVM, not behind "
                        + "renewals.%n%n",
                config.heldLocks(),
                HeldLocks.IN_FLIGHT,
                seconds(config.heldWindow())));
        md.append(
                "| library | heap per hold | acquired/s | probe ops/s | p50 ms | p99 ms | max ms | longest GC pause ms | lost holds |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Library l : libraries(Scenario.HELD_LOCKS)) {
            List<RunResult> rs = runs(Scenario.HELD_LOCKS, l);
            md.append("| ").append(labelWithFailures(l, rs)).append(" | ");
            md.append(cell(rs, r -> r.held(RunResult.Held::heapBytesPerHold), v -> Spread.ops(v) + " B"))
                    .append(" | ");
            md.append(cell(rs, r -> r.held(RunResult.Held::acquirePerSecond), Spread::ops))
                    .append(" | ");
            md.append(cell(rs, RunResult::opsPerSecond, Spread::ops)).append(" | ");
            md.append(cell(rs, r -> r.p50Nanos(), Spread::ms)).append(" | ");
            md.append(cell(rs, r -> r.p99Nanos(), Spread::ms)).append(" | ");
            md.append(cell(rs, r -> r.maxNanos(), Spread::ms)).append(" | ");
            md.append(cell(rs, r -> r.held(RunResult.Held::longestGcPauseMillis) * 1e6, Spread::ms))
                    .append(" | ");
            md.append(rs.stream()
                            .filter(r -> r.held() != null)
                            .mapToLong(r -> r.held().lost())
                            .sum())
                    .append(" |\n");
        }
    }

    private void ratios() {
        if (!config.libraries().contains(Library.DISTLOCK) || config.libraries().size() < 2) {
            return;
        }
        List<Library> peers =
                config.libraries().stream().filter(l -> l != Library.DISTLOCK).toList();
        md.append("\n## distlock relative to each peer\n\n");
        md.append(
                "Ratios of the same round (libraries run back to back within a round), median over the rounds with the "
                        + "lowest and highest in brackets. ops/s: distlock's divided by the peer's, above 1 means distlock is faster; "
                        + "p99: distlock's divided by the peer's, below 1 means distlock's tail is shorter (worst worker p99: of each "
                        + "library's worst-served worker, see above). In scenario 6 both are of "
                        + "the probe on the client holding the locks, and max is its slowest op.\n\n");
        ratioTable("ops/s distlock/", peers, RunResult::opsPerSecond, config.scenarios());
        md.append('\n');
        ratioTable("p99 distlock/", peers, r -> r.p99Nanos(), config.scenarios());
        md.append("\nRedis CPU per op, distlock's divided by the peer's (below 1: distlock costs Redis less per op; "
                + "against the raw floor running distlock's scripts, how far distlock's client adds to what its scripts "
                + "cost Redis).\n\n");
        ratioTable("Redis CPU/op distlock/", peers, RunResult::redisCpuMicrosPerOp, config.scenarios());
        List<Scenario> contended =
                config.scenarios().stream().filter(Scenario::contended).toList();
        if (!contended.isEmpty()) {
            md.append('\n');
            ratioTable("worst worker p99 distlock/", peers, RunResult::worstWorkerP99Nanos, contended);
        }
        floorTable(
                Library.RAW_FLOOR_AGAIN,
                "\nThe noise: the raw floor against itself (A/A), per round, ops/s of its second run divided by its "
                        + "first. Two runs of identical code differed by this much, so a ratio of distlock to the floor "
                        + "as close to 1 is within noise.\n\n");
        floorTable(
                Library.RAW_SCRIPTS,
                "\nThe scripts' share: the raw floor's bare client running distlock's own acquire and release "
                        + "scripts (same keys and arguments), per round, divided by the raw floor. What this loses is "
                        + "the scripts' cost on Redis's side; distlock divided by this floor (a column above) is what "
                        + "distlock's client adds.\n\n");
        if (config.scenarios().contains(Scenario.HELD_LOCKS)) {
            md.append('\n');
            ratioTable("max distlock/", peers, r -> r.maxNanos(), List.of(Scenario.HELD_LOCKS));
        }
    }

    /** One ops/s ratio per uncontended scenario: {@code floor} (a variant of the raw floor) over the raw floor. */
    private void floorTable(Library floor, String intro) {
        if (!config.libraries().contains(Library.RAW_FLOOR)
                || !config.libraries().contains(floor)) {
            return;
        }
        md.append(intro);
        md.append("| scenario | ops/s ").append(floor.label).append("/raw floor |\n|---|---:|\n");
        for (Scenario s : config.scenarios()) {
            if (s.runsWith(Library.RAW_FLOOR)) {
                md.append("| ")
                        .append(s.label(config))
                        .append(" | ")
                        .append(ratio(s, floor, Library.RAW_FLOOR, RunResult::opsPerSecond))
                        .append(" |\n");
            }
        }
    }

    private void ratioTable(String what, List<Library> all, ToDoubleFunction<RunResult> f, List<Scenario> scenarios) {
        // Only the peers that ran in one of these scenarios: a column of dashes says nothing.
        List<Library> peers = all.stream()
                .filter(p -> scenarios.stream().anyMatch(s -> s.runsWith(p)))
                .toList();
        md.append("| scenario |");
        peers.forEach(p -> md.append(' ').append(what).append(p.label).append(" |"));
        md.append("\n|---|").append("---:|".repeat(peers.size())).append('\n');
        for (Scenario s : scenarios) {
            md.append("| ").append(s.label(config)).append(" |");
            for (Library peer : peers) {
                md.append(' ').append(ratio(s, Library.DISTLOCK, peer, f)).append(" |");
            }
            md.append('\n');
        }
    }

    /** Per-round ratios library/peer (only rounds where both ran cleanly). */
    private String ratio(Scenario s, Library library, Library peer, ToDoubleFunction<RunResult> f) {
        List<RunResult> mine = runs(s, library);
        List<RunResult> theirs = runs(s, peer);
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(mine.size(), theirs.size()); i++) {
            RunResult a = mine.get(i);
            RunResult b = theirs.get(i);
            if (a.ok() && b.ok() && f.applyAsDouble(b) != 0) {
                ratios.add(f.applyAsDouble(a) / f.applyAsDouble(b));
            }
        }
        return Spread.of(ratios).format(Spread::ratio);
    }

    private void cost() {
        md.append("\n## Cost per op\n\n");
        md.append(
                "Counters over the measured window divided by the ops of the window. Client CPU: the JVM that ran it, or both "
                        + "child JVMs in scenario 4 (all their threads: callers, event loops, schedulers, JIT). Redis CPU: user + "
                        + "system time of redis-server. Commands: INFO commandstats; Redis also counts the commands a Lua script "
                        + "runs, so `evalsha` is the round trip and most commands after it are its insides. Scenario 6 counts every "
                        + "command of the window, renewals of the held locks included, per probe op. The breakdown is of the "
                        + "round with the median ops/s; rates below 0.005 are not shown.\n\n");
        md.append("| scenario | library | client CPU µs/op | Redis CPU µs/op | commands/op | breakdown |\n");
        md.append("|---|---|---:|---:|---:|---|\n");
        for (Scenario s : config.scenarios()) {
            for (Library l : libraries(s)) {
                List<RunResult> rs = ok(runs(s, l));
                if (rs.isEmpty()) {
                    continue;
                }
                RunResult median = rs.stream()
                        .sorted(Comparator.comparingDouble(RunResult::opsPerSecond))
                        .toList()
                        .get((rs.size() - 1) / 2);
                String breakdown = median.commandsPerOp().entrySet().stream()
                        .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue()))
                        .collect(Collectors.joining(", "));
                md.append("| ")
                        .append(s.label(config))
                        .append(" | ")
                        .append(l.label)
                        .append(" | ");
                md.append(cell(rs, RunResult::clientCpuMicrosPerOp, Spread::whole))
                        .append(" | ");
                md.append(cell(rs, RunResult::redisCpuMicrosPerOp, Spread::whole))
                        .append(" | ");
                md.append(cell(rs, RunResult::commandsPerOpTotal, Spread::twoDecimals))
                        .append(" | ");
                md.append(breakdown).append(" |\n");
            }
        }
    }

    private List<Library> libraries(Scenario s) {
        return config.libraries().stream().filter(s::runsWith).toList();
    }

    private List<RunResult> runs(Scenario s, Library l) {
        return runs.stream().filter(r -> r.scenario() == s && r.library() == l).toList();
    }

    private static List<RunResult> ok(List<RunResult> rs) {
        return rs.stream().filter(RunResult::ok).toList();
    }

    /** The library's name, with how many rounds failed when any did (the figures are of the others). */
    private static String labelWithFailures(Library l, List<RunResult> rs) {
        long failed = rs.stream().filter(r -> !r.ok()).count();
        return failed == 0 ? l.label : l.label + " (" + failed + " of " + rs.size() + " rounds failed, see below)";
    }

    /** Every failed run with its round and error: a failure is a result too, never hidden behind a median. */
    private void failures() {
        StringBuilder list = new StringBuilder();
        for (Scenario s : config.scenarios()) {
            for (Library l : libraries(s)) {
                List<RunResult> rs = runs(s, l);
                for (int round = 0; round < rs.size(); round++) {
                    RunResult r = rs.get(round);
                    if (!r.ok()) {
                        list.append("- ")
                                .append(s.label(config))
                                .append(", ")
                                .append(l.label)
                                .append(", round ")
                                .append(round + 1)
                                .append(": ")
                                .append(r.error().replace('\n', ' '))
                                .append('\n');
                    }
                }
            }
        }
        if (!list.isEmpty()) {
            md.append("\n## Failed runs\n\n").append(list);
        }
    }

    private static String cell(List<RunResult> rs, ToDoubleFunction<RunResult> f, DoubleFunction<String> format) {
        return Spread.of(ok(rs).stream().map(r -> f.applyAsDouble(r)).toList()).format(format);
    }

    static void write(Path file, String markdown) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Files.writeString(file, markdown);
    }

    /** Milliseconds with three significant digits and the unit, for the progress log. */
    static String millis(long nanos) {
        return Spread.ms(nanos) + " ms";
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    /**
     * A library's version: from the pom.properties Maven puts in its jar, else the jar manifest,
     * else "(dev build)" for classes straight from a reactor build.
     */
    static String version(String groupId, String artifactId, String className) {
        String resource = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = Report.class.getClassLoader().getResourceAsStream(resource)) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                if (p.getProperty("version") != null) {
                    return p.getProperty("version");
                }
            }
        } catch (IOException ignored) {
            // fall through to the manifest
        }
        try {
            String v = Class.forName(className).getPackage().getImplementationVersion();
            return v != null ? v : "(dev build)";
        } catch (ClassNotFoundException e) {
            return "?";
        }
    }
}
