package dev.distlock.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Renders every run as Markdown: each figure is the median over the rounds with the lowest and
 * highest round in brackets. Sections, each rendered by its own class: the header
 * ({@link ReportHeader}); throughput and latency ({@link ThroughputSection}); fairness and hand-off
 * ({@link FairnessSection}); held locks ({@link HeldLocksSection}); distlock relative to each peer,
 * per-round ratios ({@link RatioSection}); cost per op ({@link CostSection}); Redis Cluster
 * ({@link ClusterSection}); then the failed runs, listed here.
 */
final class Report {

    private Report() {}

    static String markdown(BenchmarkConfig config, String redisVersion, List<RunResult> runs, Duration took) {
        ReportRuns results = new ReportRuns(config, runs);
        StringBuilder md = new StringBuilder();
        ReportHeader.append(md, config, redisVersion, took);
        ThroughputSection.append(md, results);
        FairnessSection.append(md, results);
        HeldLocksSection.append(md, results);
        RatioSection.append(md, results);
        CostSection.append(md, results);
        ClusterSection.append(md, config, runs);
        failures(md, results);
        return md.toString();
    }

    /** Every failed run with its round and error: a failure is a result too, never hidden behind a median. */
    private static void failures(StringBuilder md, ReportRuns results) {
        BenchmarkConfig config = results.config();
        StringBuilder list = new StringBuilder();
        for (Scenario s : config.scenarios()) {
            for (Library l : results.libraries(s)) {
                List<RunResult> rs = results.runs(s, l);
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

    /** Seconds with one decimal and the unit, for the report's prose. */
    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
