package dev.distlock.benchmark;

import java.util.List;
import java.util.function.DoubleFunction;
import java.util.function.ToDoubleFunction;

/**
 * The runs of one benchmark as the report's sections look them up: by scenario and library, in run
 * order (the i-th run of a scenario and library is of round i), and each cell of a table as the median
 * over the rounds with the lowest and highest round in brackets.
 */
record ReportRuns(BenchmarkConfig config, List<RunResult> all) {

    /** The selected libraries that ran scenario {@code s}. */
    List<Library> libraries(Scenario s) {
        return config.libraries().stream().filter(s::runsWith).toList();
    }

    /** Every round's run of scenario {@code s} with library {@code l}, failed ones included. */
    List<RunResult> runs(Scenario s, Library l) {
        return all.stream().filter(r -> r.scenario() == s && r.library() == l).toList();
    }

    static List<RunResult> ok(List<RunResult> rs) {
        return rs.stream().filter(RunResult::ok).toList();
    }

    /** The library's name, with how many rounds failed when any did (the figures are of the others). */
    static String labelWithFailures(Library l, List<RunResult> rs) {
        long failed = rs.stream().filter(r -> !r.ok()).count();
        return failed == 0 ? l.label : l.label + " (" + failed + " of " + rs.size() + " rounds failed, see below)";
    }

    /** The median of {@code f} over the runs that did not fail, with the lowest and highest in brackets. */
    static String cell(List<RunResult> rs, ToDoubleFunction<RunResult> f, DoubleFunction<String> format) {
        return Spread.of(ok(rs).stream().map(r -> f.applyAsDouble(r)).toList()).format(format);
    }
}
