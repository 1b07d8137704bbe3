package dev.distlock.benchmark;

import java.util.Map;

/**
 * One scenario run for one library.
 *
 * @param totalOps operations including warm-up, all processes
 * @param clientCpuMicrosPerOp CPU of the client JVM(s) per measured op, -1 if unknown
 * @param redisCpuMicrosPerOp CPU of redis-server per measured op, -1 if unknown
 * @param commandsPerOp Redis commands per measured op (see {@link CommandStats})
 * @param error why the run failed or was incomplete, or {@code null}
 */
record RunResult(
        Scenario scenario,
        Library library,
        double opsPerSecond,
        long p50Nanos,
        long p99Nanos,
        long violations,
        long totalOps,
        long measuredOps,
        double clientCpuMicrosPerOp,
        double redisCpuMicrosPerOp,
        Map<String, Double> commandsPerOp,
        String error) {

    static RunResult of(
            Scenario scenario,
            Library library,
            double opsPerSecond,
            Workload.Outcome merged,
            CommandStats.Snapshot before,
            CommandStats.Snapshot after) {
        // All per-op costs are window counters over window ops, so JIT and connection warm-up stay out.
        long ops = merged.measuredOps();
        double clientCpu = merged.cpuNanos() < 0 || ops == 0 ? -1 : merged.cpuNanos() / 1e3 / ops;
        return new RunResult(
                scenario,
                library,
                opsPerSecond,
                merged.latency().quantile(0.50),
                merged.latency().quantile(0.99),
                merged.violations(),
                merged.totalOps(),
                ops,
                clientCpu,
                CommandStats.cpuMicrosPerOp(before, after, ops),
                CommandStats.perOp(before, after, ops),
                merged.error());
    }

    static RunResult failed(Scenario scenario, Library library, Throwable error) {
        return new RunResult(scenario, library, 0, 0, 0, 0, 0, 0, -1, -1, Map.of(), String.valueOf(error));
    }

    boolean ok() {
        return error == null;
    }
}
