package dev.distlock.benchmark;

import static dev.distlock.benchmark.ReportRuns.cell;
import static dev.distlock.benchmark.ReportRuns.ok;

import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The report's part on cost per op: the client's and Redis's CPU and the Redis commands each op took,
 * with the commands broken down for the round of median ops/s.
 */
final class CostSection {

    private CostSection() {}

    static void append(StringBuilder md, ReportRuns results) {
        BenchmarkConfig config = results.config();
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
            for (Library l : results.libraries(s)) {
                List<RunResult> rs = ok(results.runs(s, l));
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
}
