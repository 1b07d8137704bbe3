package dev.distlock.benchmark;

import static dev.distlock.benchmark.ReportRuns.cell;
import static dev.distlock.benchmark.ReportRuns.labelWithFailures;

import java.util.List;
import java.util.Locale;

/**
 * The report's part on scenario 6, held locks: the heap each hold costs, how fast they were taken, the
 * latency of a probe behind their renewals, the longest GC pause and the holds lost.
 */
final class HeldLocksSection {

    private HeldLocksSection() {}

    static void append(StringBuilder md, ReportRuns results) {
        BenchmarkConfig config = results.config();
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
                Report.seconds(config.heldWindow())));
        md.append(
                "| library | heap per hold | acquired/s | probe ops/s | p50 ms | p99 ms | max ms | longest GC pause ms | lost holds |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Library l : results.libraries(Scenario.HELD_LOCKS)) {
            List<RunResult> rs = results.runs(Scenario.HELD_LOCKS, l);
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
}
