package dev.distlock.benchmark;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What one run of workers in one JVM produced (or the workers of several JVMs, merged).
 *
 * @param totalOps operations including warm-up (to turn Redis command counts into per-op figures)
 * @param measuredOps operations started inside the measured window
 * @param orderViolations grants out of arrival order, or -1 when not checked
 * @param orderUndecided grants the arrival-order check could not judge: they passed an earlier worker
 *        by about as long as the JVM stood still meanwhile (see {@link ArrivalOrder}); -1 when not checked
 * @param windowNanos actual length of the measured window
 * @param cpuNanos CPU time the JVM(s) used during the measured window (all threads: callers, I/O
 *        event loops, schedulers, JIT), or -1 when the JVM cannot tell
 * @param workerOps measured ops of each worker (thread or async caller), for the fairness share
 * @param workerP99Nanos p99 latency of each worker's measured ops, in the order of {@code workerOps}
 *        (-1 for a worker without one), for the tail of the least served worker
 * @param error first failure, or {@code null}
 */
record Outcome(
        long totalOps,
        long measuredOps,
        long violations,
        long orderViolations,
        long orderUndecided,
        long windowNanos,
        long cpuNanos,
        LatencyHistogram latency,
        LatencyHistogram handOff,
        LatencyHistogram remoteHandOff,
        long[] workerOps,
        long[] workerP99Nanos,
        String error) {

    double opsPerSecond() {
        return windowNanos == 0 ? 0 : measuredOps * 1e9 / windowNanos;
    }

    static Outcome of(List<Tally> tallies, boolean orderChecked, long windowNanos, long cpuNanos, String error) {
        Sum sum = new Sum();
        long order = 0;
        long undecided = 0;
        for (Tally t : tallies) {
            long p99 = t.latency.count() == 0 ? -1 : t.latency.quantile(0.99);
            sum.add(
                    t.ops,
                    t.measured,
                    t.violations,
                    t.latency,
                    t.handOff,
                    t.remoteHandOff,
                    new long[] {t.measured},
                    new long[] {p99});
            order += t.orderViolations;
            undecided += t.orderUndecided;
        }
        return sum.outcome(orderChecked ? order : -1, orderChecked ? undecided : -1, windowNanos, cpuNanos, error);
    }

    /** The outcomes of several JVMs as one: counts and histograms add up, and so do their rates. */
    static Outcome merge(List<Outcome> parts) {
        Sum sum = new Sum();
        long cpu = 0;
        double rate = 0;
        String error = null;
        for (Outcome o : parts) {
            sum.add(
                    o.totalOps,
                    o.measuredOps,
                    o.violations,
                    o.latency,
                    o.handOff,
                    o.remoteHandOff,
                    o.workerOps,
                    o.workerP99Nanos);
            cpu = cpu < 0 || o.cpuNanos < 0 ? -1 : cpu + o.cpuNanos;
            // Each JVM timed its own window; their rates add up.
            rate += o.opsPerSecond();
            error = error != null ? error : o.error;
        }
        // A window length that gives back the summed rate, so opsPerSecond() stays right.
        long window = rate == 0 ? 0 : Math.round(sum.measured * 1e9 / rate);
        return sum.outcome(-1, -1, window, cpu, error);
    }

    /** Running totals of counts, histograms and workers. */
    private static final class Sum {
        private final LatencyHistogram latency = new LatencyHistogram();
        private final LatencyHistogram handOff = new LatencyHistogram();
        private final LatencyHistogram remote = new LatencyHistogram();
        private long total;
        private long measured;
        private long violations;
        private long[] workers = new long[0];
        private long[] workerP99 = new long[0];

        void add(
                long total,
                long measured,
                long violations,
                LatencyHistogram latency,
                LatencyHistogram handOff,
                LatencyHistogram remote,
                long[] workers,
                long[] workerP99) {
            this.total += total;
            this.measured += measured;
            this.violations += violations;
            this.latency.add(latency);
            this.handOff.add(handOff);
            this.remote.add(remote);
            this.workers = joined(this.workers, workers);
            this.workerP99 = joined(this.workerP99, workerP99);
        }

        private static long[] joined(long[] a, long[] b) {
            long[] joined = Arrays.copyOf(a, a.length + b.length);
            System.arraycopy(b, 0, joined, a.length, b.length);
            return joined;
        }

        Outcome outcome(long orderViolations, long orderUndecided, long windowNanos, long cpuNanos, String error) {
            return new Outcome(
                    total,
                    measured,
                    violations,
                    orderViolations,
                    orderUndecided,
                    windowNanos,
                    cpuNanos,
                    latency,
                    handOff,
                    remote,
                    workers,
                    workerP99,
                    error);
        }
    }

    static final String RESULT = "RESULT";

    /** One line of text, for a child JVM's stdout. */
    String encode() {
        // The error text is last because it may contain spaces.
        return String.join(
                " ",
                RESULT,
                Long.toString(totalOps),
                Long.toString(measuredOps),
                Long.toString(violations),
                Long.toString(orderViolations),
                Long.toString(orderUndecided),
                Long.toString(windowNanos),
                Long.toString(cpuNanos),
                latency.encode(),
                handOff.encode(),
                remoteHandOff.encode(),
                longs(workerOps),
                longs(workerP99Nanos),
                error == null ? "-" : error.replace('\n', ' '));
    }

    static Outcome decode(String line) {
        String[] f = line.split(" ", 14);
        if (f.length != 14 || !f[0].equals(RESULT)) {
            throw new IllegalArgumentException("Not a child result line: " + line);
        }
        return new Outcome(
                Long.parseLong(f[1]),
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[4]),
                Long.parseLong(f[5]),
                Long.parseLong(f[6]),
                Long.parseLong(f[7]),
                LatencyHistogram.decode(f[8]),
                LatencyHistogram.decode(f[9]),
                LatencyHistogram.decode(f[10]),
                longs(f[11]),
                longs(f[12]),
                f[13].equals("-") ? null : f[13]);
    }

    private static String longs(long[] values) {
        return Arrays.stream(values).mapToObj(Long::toString).collect(Collectors.joining(","));
    }

    private static long[] longs(String text) {
        return text.isEmpty()
                ? new long[0]
                : Arrays.stream(text.split(",")).mapToLong(Long::parseLong).toArray();
    }
}
