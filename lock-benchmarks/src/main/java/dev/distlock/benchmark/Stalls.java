package dev.distlock.benchmark;

import java.util.concurrent.locks.LockSupport;

/**
 * Spans of time when this whole JVM stood still: a stop-the-world pause, or the process getting no
 * core at all on a busy host. Two ticker threads each ask to wake every {@link #TICK_NANOS} and note
 * every wake-up that came more than {@link #LATE_NANOS} late; a span counts only where both were late
 * at once, since one late thread alone may just have waited for a core while the others ran. The
 * arrival-order check asks how much of a span of time was such a stall (see {@link ArrivalOrder}).
 * The tickers cost two wake-ups a millisecond, so only the fair scenario runs them.
 */
final class Stalls implements ArrivalOrder.StallClock, AutoCloseable {

    static final long TICK_NANOS = 1_000_000;
    static final long LATE_NANOS = 2_000_000;

    private final Ticker first = new Ticker("stall-ticker-1");
    private final Ticker second = new Ticker("stall-ticker-2");

    Stalls() {
        first.start();
        second.start();
    }

    @Override
    public long stalledNanos(long from, long to) {
        return overlap(first.spans(), second.spans(), from, to);
    }

    /**
     * How much of [{@code from}, {@code to}] lies in a span of {@code a} and a span of {@code b} at once.
     * Spans are flattened as start, end, start, end, ...; the spans of one list do not overlap each other.
     */
    static long overlap(long[] a, long[] b, long from, long to) {
        long total = 0;
        for (int i = 0; i + 1 < a.length; i += 2) {
            for (int j = 0; j + 1 < b.length; j += 2) {
                long start = Math.max(from, Math.max(a[i], b[j]));
                long end = Math.min(to, Math.min(a[i + 1], b[j + 1]));
                if (end > start) {
                    total += end - start;
                }
            }
        }
        return total;
    }

    @Override
    public void close() {
        first.stopped = true;
        second.stopped = true;
        LockSupport.unpark(first);
        LockSupport.unpark(second);
    }

    /** One thread that wakes every tick and keeps its last late wake-ups. */
    private static final class Ticker extends Thread {
        /** Spans kept: far more than any one worker's wait can cover. */
        private static final int KEPT = 512;

        private final long[] spans = new long[2 * KEPT]; // guarded by this
        private int next; // guarded by this
        private int count; // guarded by this
        volatile boolean stopped;

        Ticker(String name) {
            super(name);
            setDaemon(true);
        }

        @Override
        public void run() {
            while (!stopped) {
                long before = System.nanoTime();
                LockSupport.parkNanos(TICK_NANOS);
                long after = System.nanoTime();
                if (after - before > TICK_NANOS + LATE_NANOS) {
                    record(before + TICK_NANOS, after);
                }
            }
        }

        private synchronized void record(long start, long end) {
            spans[2 * next] = start;
            spans[2 * next + 1] = end;
            next = (next + 1) % KEPT;
            count = Math.min(count + 1, KEPT);
        }

        synchronized long[] spans() {
            long[] copy = new long[2 * count];
            System.arraycopy(spans, 0, copy, 0, 2 * count);
            return copy;
        }
    }
}
