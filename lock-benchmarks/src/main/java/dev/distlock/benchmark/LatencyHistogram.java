package dev.distlock.benchmark;

import java.util.Arrays;

/**
 * Log-linear histogram of nanosecond latencies with about 1.6 % resolution. Each worker thread
 * fills its own, so recording is a plain array increment; merged at the end. Kept here instead of
 * a dependency because the benchmark needs only record, merge, percentile and a text form that a
 * child JVM can print on one line.
 */
final class LatencyHistogram {

    /** 2^SUB_BITS buckets per power of two: relative error below 1 / 2^SUB_BITS. */
    private static final int SUB_BITS = 6;

    private static final int SUB = 1 << SUB_BITS;
    private static final int BUCKETS = (64 - SUB_BITS) * SUB;

    private final long[] counts = new long[BUCKETS];
    private long total;

    void record(long nanos) {
        counts[index(Math.max(0, nanos))]++;
        total++;
    }

    long count() {
        return total;
    }

    void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
    }

    /** The value at quantile {@code q} (0..1) in nanoseconds, or 0 when empty. */
    long quantile(double q) {
        if (total == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return middle(i);
            }
        }
        return middle(BUCKETS - 1);
    }

    /** Sparse {@code index:count,...} form, short enough for one stdout line of a child JVM. */
    String encode() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < BUCKETS; i++) {
            if (counts[i] != 0) {
                if (sb.length() > 0) {
                    sb.append(',');
                }
                sb.append(i).append(':').append(counts[i]);
            }
        }
        return sb.length() == 0 ? "-" : sb.toString();
    }

    static LatencyHistogram decode(String text) {
        LatencyHistogram h = new LatencyHistogram();
        if (!text.equals("-")) {
            for (String pair : text.split(",")) {
                int colon = pair.indexOf(':');
                long c = Long.parseLong(pair.substring(colon + 1));
                h.counts[Integer.parseInt(pair.substring(0, colon))] += c;
                h.total += c;
            }
        }
        return h;
    }

    static int index(long v) {
        if (v < 2 * SUB) {
            return (int) v;
        }
        int msb = 63 - Long.numberOfLeadingZeros(v);
        int shift = msb - SUB_BITS;
        // v >>> shift lies in [SUB, 2 * SUB): the top SUB_BITS + 1 bits of v
        return (shift + 1) * SUB + (int) ((v >>> shift) - SUB);
    }

    /** Lower bound of bucket {@code i}. */
    static long lowest(int i) {
        if (i < 2 * SUB) {
            return i;
        }
        int shift = i / SUB - 1;
        return (long) (SUB + i % SUB) << shift;
    }

    private static long middle(int i) {
        if (i < 2 * SUB) {
            return i;
        }
        int shift = i / SUB - 1;
        return lowest(i) + ((1L << shift) >> 1);
    }

    @Override
    public String toString() {
        return "LatencyHistogram[n=" + total + ", p50=" + quantile(0.5) + "ns, p99=" + quantile(0.99) + "ns, nonEmpty="
                + Arrays.stream(counts).filter(c -> c > 0).count() + "]";
    }
}
