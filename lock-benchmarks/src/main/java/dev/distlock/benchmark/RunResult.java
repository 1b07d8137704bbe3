package dev.distlock.benchmark;

import java.util.Map;

/**
 * One scenario run for one library.
 *
 * @param totalOps operations including warm-up, all processes
 * @param commandsPerOp Redis commands per operation (see {@link CommandStats})
 * @param error why the run failed or was incomplete, or {@code null}
 */
record RunResult(Scenario scenario, Library library, double opsPerSecond, long p50Nanos, long p99Nanos, long violations,
        long totalOps, long measuredOps, Map<String, Double> commandsPerOp, String error) {

    static RunResult of(Scenario scenario, Library library, double opsPerSecond, Workload.Outcome merged,
            Map<String, Double> commandsPerOp) {
        return new RunResult(scenario, library, opsPerSecond, merged.latency().quantile(0.50), merged.latency().quantile(0.99),
                merged.violations(), merged.totalOps(), merged.measuredOps(), commandsPerOp, merged.error());
    }

    static RunResult failed(Scenario scenario, Library library, Throwable error) {
        return new RunResult(scenario, library, 0, 0, 0, 0, 0, 0, Map.of(), String.valueOf(error));
    }

    boolean ok() {
        return error == null;
    }
}
