package dev.distlock.benchmark;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One run of one scenario for one library. Figures that do not apply are NaN (or -1 for counts).
 *
 * @param totalOps operations including warm-up, all processes
 * @param orderViolations grants out of arrival order (fair scenario), -1 when not checked
 * @param orderUndecided grants the arrival-order check could not judge because the JVM stood still
 *        meanwhile (see {@link ArrivalOrder}), -1 when not checked
 * @param threadShare measured ops of the busiest worker divided into those of the idlest (1 = even)
 * @param worstWorkerP99Nanos the highest p99 of any one worker (thread or async caller) over its own
 *        measured ops, NaN with fewer than two workers: where workers take turns unevenly, the pooled
 *        p99 is mostly of the busy workers' ops, and this is the tail the least served one saw
 * @param jvmShare the smallest share of all grants any one JVM got (multi-JVM scenario)
 * @param handOffsPerOp hand-offs (a grant to a holder that waited while another released) per op
 * @param clientCpuMicrosPerOp CPU of the client JVM(s) per measured op
 * @param redisCpuMicrosPerOp CPU of redis-server per measured op
 * @param commandsPerOp Redis commands per measured op (see {@link CommandStats})
 * @param roundTripP50Nanos median Redis round trip (PING) from the coordinating JVM during the measured
 *        window, under the run's load (multi-JVM scenario), else NaN
 * @param held the held-locks scenario's own figures, or {@code null}
 * @param cluster the Redis Cluster scenario's pub/sub messages, or {@code null}
 * @param error why the run failed or was incomplete, or {@code null}
 */
record RunResult(
        Scenario scenario,
        Library library,
        double opsPerSecond,
        long p50Nanos,
        long p99Nanos,
        long p999Nanos,
        long maxNanos,
        long violations,
        long orderViolations,
        long orderUndecided,
        long totalOps,
        long measuredOps,
        double threadShare,
        double worstWorkerP99Nanos,
        double jvmShare,
        double handOffsPerOp,
        double handOffP50Nanos,
        double handOffP99Nanos,
        double remoteHandOffP50Nanos,
        double remoteHandOffP99Nanos,
        double clientCpuMicrosPerOp,
        double redisCpuMicrosPerOp,
        Map<String, Double> commandsPerOp,
        double roundTripP50Nanos,
        Held held,
        ClusterMessages cluster,
        String error) {

    /**
     * Figures of the held-locks scenario.
     *
     * @param count locks held on the client during the window
     * @param heapBytesPerHold growth of the used heap (after GC) from holding them, divided by the count
     * @param acquirePerSecond how fast the client took them
     * @param lost holds lost: lease-lost events (distlock), held keys gone from Redis after the window,
     *        or releases refused afterwards (any library), whichever is most
     * @param longestGcPauseMillis the longest GC pause of the JVM that started within the window
     *        ({@link GcPauses}): a probe call that waited about as long stood still with the whole JVM
     */
    record Held(int count, double heapBytesPerHold, double acquirePerSecond, long lost, double longestGcPauseMillis) {}

    /**
     * Pub/sub messages of the Redis Cluster scenario's window.
     *
     * @param published PUBLISH and SPUBLISH the masters ran (the release scripts' wake-ups), summed
     * @param busReceived messages the masters received from another node over the cluster bus, summed: a
     *        PUBLISH reaches every other node so, an SPUBLISH none (without replicas)
     * @param handledPerNode each master's own wake-ups plus those it received over the bus
     */
    record ClusterMessages(long published, long busReceived, long[] handledPerNode) {

        /** Messages the nodes that do not own a wake-up's slot handled, per wake-up published. */
        double otherNodesPerRelease() {
            return published == 0 ? Double.NaN : busReceived / (double) published;
        }

        /** Node {@code i}'s messages per wake-up published, of all the cluster's. */
        double nodePerRelease(int i) {
            return published == 0 ? Double.NaN : handledPerNode[i] / (double) published;
        }
    }

    /** This run with the Redis Cluster scenario's messages. */
    RunResult withCluster(ClusterMessages messages) {
        return with(roundTripP50Nanos, messages);
    }

    /**
     * @param jvmOps measured ops of each JVM when several took part, else empty
     */
    static RunResult of(
            Scenario scenario,
            Library library,
            Outcome o,
            List<Long> jvmOps,
            CommandStats.Snapshot before,
            CommandStats.Snapshot after,
            Held held) {
        // All per-op costs are window counters over window ops, so JIT and connection warm-up stay out.
        long ops = o.measuredOps();
        double clientCpu = o.cpuNanos() < 0 || ops == 0 ? Double.NaN : o.cpuNanos() / 1e3 / ops;
        double redisCpu = CommandStats.cpuMicrosPerOp(before, after, ops);
        return new RunResult(
                scenario,
                library,
                o.opsPerSecond(),
                o.latency().quantile(0.50),
                o.latency().quantile(0.99),
                o.latency().quantile(0.999),
                o.latency().quantile(1.0),
                o.violations(),
                o.orderViolations(),
                o.orderUndecided(),
                o.totalOps(),
                ops,
                share(Arrays.stream(o.workerOps()).boxed().toList()),
                o.workerP99Nanos().length < 2
                        ? Double.NaN
                        : Arrays.stream(o.workerP99Nanos())
                                .filter(p99 -> p99 >= 0)
                                .asDoubleStream()
                                .max()
                                .orElse(Double.NaN),
                jvmOps.size() < 2 || ops == 0
                        ? Double.NaN
                        : jvmOps.stream().mapToLong(Long::longValue).min().orElse(0) / (double) ops,
                ops == 0 ? Double.NaN : o.handOff().count() / (double) ops,
                quantile(o.handOff(), 0.50),
                quantile(o.handOff(), 0.99),
                quantile(o.remoteHandOff(), 0.50),
                quantile(o.remoteHandOff(), 0.99),
                clientCpu,
                redisCpu < 0 ? Double.NaN : redisCpu,
                CommandStats.perOp(before, after, ops),
                Double.NaN,
                held,
                null,
                o.error());
    }

    /** This run with the round trip measured during it. */
    RunResult withRoundTrip(double roundTripNanos) {
        return with(roundTripNanos, cluster);
    }

    private RunResult with(double roundTripNanos, ClusterMessages messages) {
        return new RunResult(
                scenario,
                library,
                opsPerSecond,
                p50Nanos,
                p99Nanos,
                p999Nanos,
                maxNanos,
                violations,
                orderViolations,
                orderUndecided,
                totalOps,
                measuredOps,
                threadShare,
                worstWorkerP99Nanos,
                jvmShare,
                handOffsPerOp,
                handOffP50Nanos,
                handOffP99Nanos,
                remoteHandOffP50Nanos,
                remoteHandOffP99Nanos,
                clientCpuMicrosPerOp,
                redisCpuMicrosPerOp,
                commandsPerOp,
                roundTripNanos,
                held,
                messages,
                error);
    }

    /** The cross-JVM hand-off p50 in round trips measured in the same run; NaN when either is missing. */
    double remoteHandOffRoundTrips() {
        return remoteHandOffP50Nanos / roundTripP50Nanos;
    }

    static RunResult failed(Scenario scenario, Library library, Throwable error) {
        return new RunResult(
                scenario,
                library,
                0,
                0,
                0,
                0,
                0,
                0,
                -1,
                -1,
                0,
                0,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Double.NaN,
                Map.of(),
                Double.NaN,
                null,
                null,
                String.valueOf(error));
    }

    /** NaN when nothing was recorded, so the report shows no figure rather than a zero. */
    private static double quantile(LatencyHistogram h, double q) {
        return h.count() == 0 ? Double.NaN : h.quantile(q);
    }

    /** Smallest over largest; NaN with fewer than two workers. */
    private static double share(List<Long> ops) {
        if (ops.size() < 2) {
            return Double.NaN;
        }
        long max = ops.stream().mapToLong(Long::longValue).max().orElse(0);
        return max == 0
                ? Double.NaN
                : ops.stream().mapToLong(Long::longValue).min().orElse(0) / (double) max;
    }

    boolean ok() {
        return error == null;
    }

    /** Commands per op in all. */
    double commandsPerOpTotal() {
        return commandsPerOp.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** A figure of the held-locks part, NaN for other scenarios. */
    double held(ToDoubleFunction<Held> figure) {
        return held == null ? Double.NaN : figure.applyAsDouble(held);
    }
}
