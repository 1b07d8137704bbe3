package dev.distlock.benchmark;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import org.jspecify.annotations.Nullable;

/**
 * Runs lock; check; unlock in a loop on a set of workers: a warm-up, then a measured window. Only
 * operations that start inside the window are timed and counted. A worker is a thread blocking in
 * {@code lock()} ({@link #threads}), or an async caller that chains its next op when the last one
 * completed ({@link #callers}).
 */
final class Workload {

    private static final int WARMUP = 0;
    static final int MEASURE = 1;
    static final int STOP = 2;

    /** How long workers may stay blocked after the window before the run is declared stuck. */
    static final Duration STUCK_AFTER = Duration.ofSeconds(30);

    private volatile int phase = WARMUP;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private Workload() {}

    /** Told when the measured window opens and closes, to sample outside counters at the same moments. */
    interface Window {
        Window NONE = new Window() {};

        default void opened() {}

        default void closed() {}

        /** Both windows: {@code first} opens first and closes last. */
        static Window both(Window first, Window second) {
            return new Window() {
                @Override
                public void opened() {
                    first.opened();
                    second.opened();
                }

                @Override
                public void closed() {
                    second.closed();
                    first.closed();
                }
            };
        }
    }

    /**
     * One thread per lock.
     *
     * @param locks each thread's lock (the same key twice means contention), or its {@link KeyRotation}
     * @param slots each thread's occupancy slot (the lock's key; a key rotation's slot comes with each key)
     * @param order checks the grant order of a fair lock, or {@code null}
     */
    static Outcome threads(
            List<Lock> locks,
            List<Occupancy.Slot> slots,
            @Nullable ArrivalOrder order,
            Duration warmup,
            Duration measure,
            Window window)
            throws InterruptedException {
        Workload w = new Workload();
        int n = locks.size();
        List<Tally> tallies = new ArrayList<>();
        CountDownLatch ready = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int t = i;
            Lock lock = locks.get(i);
            Occupancy.Slot fixed = slots.get(i);
            Tally tally = new Tally();
            tallies.add(tally);
            long holder = Occupancy.Holders.of(t);
            Thread thread = new Thread(
                    () -> {
                        ready.countDown();
                        try {
                            go.await();
                            int p;
                            while ((p = w.phase) != STOP) {
                                // a lock over several keys takes the next one, and its key's slot, each op
                                Occupancy.Slot slot = lock instanceof KeyRotation keys ? keys.next() : fixed;
                                long start = System.nanoTime();
                                if (order != null) {
                                    order.asking(t, start);
                                }
                                lock.lock();
                                try {
                                    long granted = System.nanoTime();
                                    if (order != null) {
                                        ArrivalOrder.Verdict verdict = order.granted(t, granted);
                                        if (p == MEASURE) {
                                            tally.order(verdict);
                                        }
                                    }
                                    slot.enter(holder, start, granted, tally, p == MEASURE);
                                    slot.leave(holder);
                                } finally {
                                    lock.unlock();
                                }
                                tally.op(System.nanoTime() - start, p == MEASURE);
                            }
                        } catch (Throwable e) {
                            w.fail(e);
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
        long[] windowAndCpu = w.timeWindow(warmup, measure, window);
        long deadline = System.nanoTime() + STUCK_AFTER.toNanos();
        int stuck = 0;
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (thread.isAlive()) {
                stuck++;
            }
        }
        // A stuck thread may still write its tally; its figures are left out, the error says why.
        List<Tally> finished = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (!threads.get(i).isAlive()) {
                finished.add(tallies.get(i));
            }
        }
        return w.outcome(finished, order != null, windowAndCpu, stuck, "thread(s) still inside lock()/unlock()");
    }

    /**
     * Async callers, each running one {@link LockProvider.AsyncCycle} after another, started on a
     * pool of {@code poolThreads} threads: callers do not block, so a few threads carry many of them.
     * Each next op starts on the pool rather than in the completing callback, so a library that
     * completes in the calling thread cannot build an ever deeper stack.
     */
    static Outcome callers(
            List<LockProvider.AsyncCycle> cycles,
            List<Occupancy.Slot> slots,
            int poolThreads,
            Duration warmup,
            Duration measure,
            Window window)
            throws InterruptedException {
        Workload w = new Workload();
        int n = cycles.size();
        ExecutorService pool = Executors.newFixedThreadPool(poolThreads, r -> {
            Thread t = new Thread(r, "bench-caller-pool");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Tally> tallies = new ArrayList<>();
            CountDownLatch done = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                AsyncCaller c = new AsyncCaller(w, cycles.get(i), slots.get(i), Occupancy.Holders.of(i), pool, done);
                tallies.add(c.tally());
                pool.execute(c);
            }
            long[] windowAndCpu = w.timeWindow(warmup, measure, window);
            boolean finished = done.await(STUCK_AFTER.toMillis(), TimeUnit.MILLISECONDS);
            return w.outcome(
                    finished ? tallies : List.of(),
                    false,
                    windowAndCpu,
                    (int) done.getCount(),
                    "async caller(s) still waiting for a lock or unlock");
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The phase a worker's next op runs in: warm-up, {@link #MEASURE} once the window opened, {@link #STOP}
     * once it closed or a worker failed.
     */
    int phase() {
        return phase;
    }

    /** Keeps the first failure for the outcome and stops every worker. */
    void fail(Throwable e) {
        failure.compareAndSet(null, e);
        phase = STOP; // fail fast: the others stop at their next round
    }

    /** Warm-up, then the measured window; returns its length and the CPU used in it. */
    private long[] timeWindow(Duration warmup, Duration measure, Window window) throws InterruptedException {
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
        return new long[] {windowEnd - windowStart, cpuStart < 0 || cpuEnd < 0 ? -1 : cpuEnd - cpuStart};
    }

    private Outcome outcome(List<Tally> tallies, boolean orderChecked, long[] windowAndCpu, int stuck, String what) {
        String error = null;
        if (failure.get() != null) {
            error = failure.get().toString();
        } else if (stuck > 0) {
            error = stuck + " " + what + " " + STUCK_AFTER.toSeconds() + " s after the window closed";
        }
        return Outcome.of(tallies, orderChecked, windowAndCpu[0], windowAndCpu[1], error);
    }

    /**
     * A few lock+unlock rounds on a throw-away key before any clock runs: loads classes and Lua
     * scripts and makes lazy connections, so a short warm-up is spent warming the JIT, not on
     * one-off set-up.
     */
    static void prime(Lock lock) {
        for (int i = 0; i < 20; i++) {
            lock.lock();
            lock.unlock();
        }
    }

    /** {@link #prime(Lock)} for an async cycle. */
    static void prime(LockProvider.AsyncCycle cycle) {
        for (int i = 0; i < 20; i++) {
            cycle.run(() -> {}).toCompletableFuture().join();
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

    static void sleep(Duration d) throws InterruptedException {
        long end = System.nanoTime() + d.toNanos();
        long left;
        while ((left = end - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
