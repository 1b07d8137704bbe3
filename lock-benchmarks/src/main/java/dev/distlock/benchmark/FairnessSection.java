package dev.distlock.benchmark;

import static dev.distlock.benchmark.ReportRuns.cell;
import static dev.distlock.benchmark.ReportRuns.ok;

import java.util.List;
import java.util.function.DoubleFunction;
import java.util.function.ToDoubleFunction;

/**
 * The report's part on fairness and hand-off: how evenly the workers and JVMs were served, how long a
 * release took to reach a waiting holder (also across JVMs, in Redis round trips), and the fair lock's
 * grants out of arrival order.
 */
final class FairnessSection {

    private FairnessSection() {}

    static void append(StringBuilder md, ReportRuns results) {
        BenchmarkConfig config = results.config();
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
            for (Library l : results.libraries(s)) {
                List<RunResult> rs = ok(results.runs(s, l));
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
                md.append(cellIf(handOffs, rs, RunResult::handOffsPerOp, Spread::twoDecimals));
                md.append(cellIf(handOffs, rs, RunResult::handOffP50Nanos, Spread::ms));
                md.append(cellIf(handOffs, rs, RunResult::handOffP99Nanos, Spread::ms));
                md.append(cellIf(remote, rs, RunResult::remoteHandOffP50Nanos, Spread::ms));
                md.append(cellIf(remote, rs, RunResult::remoteHandOffP99Nanos, Spread::ms));
                md.append(cellIf(remote, rs, RunResult::roundTripP50Nanos, Spread::ms));
                md.append(cellIf(remote, rs, RunResult::remoteHandOffRoundTrips, Spread::oneDecimal));
                md.append(
                                s == Scenario.FAIR_CONTENDED
                                        ? order + (undecided > 0 ? " (" + undecided + " undecided)" : "")
                                        : "-")
                        .append(" |\n");
            }
        }
    }

    /** The cell of a column that applies to some scenarios only, and its separator: "-" where it does not. */
    private static String cellIf(
            boolean applies, List<RunResult> rs, ToDoubleFunction<RunResult> f, DoubleFunction<String> format) {
        return (applies ? cell(rs, f, format) : "-") + " | ";
    }
}
