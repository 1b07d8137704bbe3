package dev.distlock.benchmark;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

/**
 * Runs lock(); check; unlock(); in a loop on a set of threads: a warm-up, then a measured window.
 * Only operations that start inside the window are timed and counted.
 */
final class Workload {

    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    /** How long threads may stay blocked after the window before the run is declared stuck. */
    static final Duration STUCK_AFTER = Duration.ofSeconds(30);

    /**
     * What one run produced.
     *
     * @param totalOps operations including warm-up (to turn Redis command counts into per-op figures)
     * @param measuredOps operations started inside the measured window
     * @param windowNanos actual length of the measured window
     * @param cpuNanos CPU time this JVM used during the measured window (all its threads: callers,
     *        I/O event loops, schedulers, JIT), or -1 when the JVM cannot tell
     * @param error first failure, or {@code null}
     */
    record Outcome(
            long totalOps,
            long measuredOps,
            long violations,
            long windowNanos,
            long cpuNanos,
            LatencyHistogram latency,
            String error) {

        double opsPerSecond() {
            return windowNanos == 0 ? 0 : measuredOps * 1e9 / windowNanos;
        }
    }

    private volatile int phase = WARMUP;

    private Workload() {}

    /** Told when the measured window opens and closes, to sample outside counters at the same moments. */
    interface Window {
        Window NONE = new Window() {};

        default void opened() {}

        default void closed() {}
    }

    /**
     * @param keys one entry per thread: the key that thread locks (repeat a key to contend on it)
     */
    static Outcome run(
            LockProvider provider,
            List<String> keys,
            Occupancy occupancy,
            Duration warmup,
            Duration measure,
            Window window)
            throws InterruptedException {
        return new Workload().execute(provider, keys, occupancy, warmup, measure, window);
    }

    private Outcome execute(
            LockProvider provider,
            List<String> keys,
            Occupancy occupancy,
            Duration warmup,
            Duration measure,
            Window window)
            throws InterruptedException {
        int n = keys.size();
        long[] total = new long[n];
        long[] measured = new long[n];
        long[] violations = new long[n];
        LatencyHistogram[] latencies = new LatencyHistogram[n];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int t = i;
            // Locks and slots are made before the start signal so set-up cost stays out of the loop.
            Lock lock = provider.lock(keys.get(i));
            Occupancy.Slot slot = occupancy.slot(keys.get(i));
            LatencyHistogram hist = new LatencyHistogram();
            latencies[t] = hist;
            Thread thread = new Thread(
                    () -> {
                        ready.countDown();
                        long ops = 0;
                        long timed = 0;
                        long bad = 0;
                        try {
                            go.await();
                            while (true) {
                                int p = phase;
                                if (p == STOP) {
                                    break;
                                }
                                long start = System.nanoTime();
                                lock.lock();
                                try {
                                    if (!slot.enterAndLeave()) {
                                        bad++;
                                    }
                                } finally {
                                    lock.unlock();
                                }
                                long took = System.nanoTime() - start;
                                ops++;
                                if (p == MEASURE) {
                                    hist.record(took);
                                    timed++;
                                }
                            }
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                            phase = STOP; // fail fast: the others stop at their next round
                        } finally {
                            // Written once at the end, not per round: neighbouring array slots share a cache line.
                            total[t] = ops;
                            measured[t] = timed;
                            violations[t] = bad;
                        }
                    },
                    "bench-worker-" + t);
            // Daemon: a thread blocked for ever in lock() must not keep the JVM alive.
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        ready.await();
        go.countDown();
        sleep(warmup);
        window.opened();
        long cpuStart = processCpuNanos();
        long windowStart = System.nanoTime();
        if (phase == WARMUP) {
            phase = MEASURE;
        }
        sleep(measure);
        long windowEnd = System.nanoTime();
        long cpuEnd = processCpuNanos();
        phase = STOP;
        window.closed();
        long deadline = System.nanoTime() + STUCK_AFTER.toNanos();
        int stuck = 0;
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (thread.isAlive()) {
                stuck++;
            }
        }
        String error = null;
        if (failure.get() != null) {
            error = failure.get().toString();
        } else if (stuck > 0) {
            error = stuck + " thread(s) still inside lock()/unlock() " + STUCK_AFTER.toSeconds()
                    + " s after the window closed";
        }
        LatencyHistogram latency = new LatencyHistogram();
        long totalOps = 0;
        long measuredOps = 0;
        long bad = 0;
        for (int i = 0; i < n; i++) {
            totalOps += total[i];
            measuredOps += measured[i];
            bad += violations[i];
            if (!threads.get(i).isAlive()) {
                latency.add(latencies[i]);
            }
        }
        long cpu = cpuStart < 0 || cpuEnd < 0 ? -1 : cpuEnd - cpuStart;
        return new Outcome(totalOps, measuredOps, bad, windowEnd - windowStart, cpu, latency, error);
    }

    /**
     * A few lock+unlock rounds on a throw-away key before any clock runs: loads classes and Lua
     * scripts and makes lazy connections, so a short warm-up is spent warming the JIT, not on
     * one-off set-up.
     */
    static void prime(LockProvider provider, String key) {
        Lock lock = provider.lock(key);
        for (int i = 0; i < 20; i++) {
            lock.lock();
            lock.unlock();
        }
    }

    /**
     * CPU time of the whole JVM: on a small machine the client's CPU per op decides throughput as
     * much as Redis round trips do, and it is where libraries differ most.
     */
    static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    private static void sleep(Duration d) throws InterruptedException {
        long end = System.nanoTime() + d.toNanos();
        long left;
        while ((left = end - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
