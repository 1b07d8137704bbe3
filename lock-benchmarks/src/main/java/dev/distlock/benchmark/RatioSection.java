package dev.distlock.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The report's part on distlock relative to each peer: per-round ratios of ops/s, p99, Redis CPU per op
 * and the worst worker's p99, then the raw floor's A/A noise and its scripts' share, and scenario 6's max.
 */
final class RatioSection {

    private final StringBuilder md;
    private final ReportRuns results;
    private final BenchmarkConfig config;

    private RatioSection(StringBuilder md, ReportRuns results) {
        this.md = md;
        this.results = results;
        this.config = results.config();
    }

    static void append(StringBuilder md, ReportRuns results) {
        new RatioSection(md, results).ratios();
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
        List<RunResult> mine = results.runs(s, library);
        List<RunResult> theirs = results.runs(s, peer);
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
}
