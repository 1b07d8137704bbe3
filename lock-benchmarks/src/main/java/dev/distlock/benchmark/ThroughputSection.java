package dev.distlock.benchmark;

import static dev.distlock.benchmark.ReportRuns.cell;
import static dev.distlock.benchmark.ReportRuns.labelWithFailures;

import java.util.List;

/**
 * The report's first table: per scenario and library, the ops/s, the Redis CPU they cost, the latency
 * quantiles and the mutual-exclusion violations.
 */
final class ThroughputSection {

    private ThroughputSection() {}

    static void append(StringBuilder md, ReportRuns results) {
        BenchmarkConfig config = results.config();
        md.append("Redis CPU: user + system time of redis-server (of every master in scenario 11) over the measured "
                + "window, per op, beside the ops/s it bought: in production Redis is the shared limit.\n\n");
        md.append("| scenario | library | ops/s | Redis CPU µs/op | p50 ms | p99 ms | p999 ms | violations |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (Scenario s : config.scenarios()) {
            for (Library l : results.libraries(s)) {
                List<RunResult> rs = results.runs(s, l);
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
}
