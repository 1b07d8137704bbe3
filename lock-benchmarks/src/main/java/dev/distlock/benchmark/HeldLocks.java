package dev.distlock.benchmark;

import io.lettuce.core.api.sync.RedisCommands;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/**
 * The held-locks scenario: one client takes {@code heldLocks} watchdog locks and keeps them; then,
 * on the same client, one thread locks and unlocks a free key for a window long enough for every
 * held lock to be renewed at least twice. The probe's latency (max and p99) shows how long an
 * ordinary lock call waits behind renewal traffic; the used heap (after GC) before and after taking
 * the holds gives the heap per held lock. Nothing else touches the held keys, so any hold lost by
 * the end is a false loss: reported lost by the library, gone from Redis after the window, or
 * refused when released.
 */
final class HeldLocks {

    /** Calls in flight while taking and releasing the holds: enough to fill the pipe, few enough not to time out. */
    static final int IN_FLIGHT = 256;

    private static final String PROBE_KEY = "bench-probe";

    private final BenchmarkConfig config;
    private final RedisCommands<String, String> admin;

    HeldLocks(BenchmarkConfig config, RedisCommands<String, String> admin) {
        this.config = config;
        this.admin = admin;
    }

    RunResult run(Library library, String host, int port) throws InterruptedException {
        int n = config.heldLocks();
        try (LockProvider provider = library.open(host, port, config.heldLease())) {
            Lock probe = provider.lock(PROBE_KEY);
            Workload.prime(probe);
            provider.hold("bench-prime-hold")
                    .thenCompose(LockProvider.Hold::release)
                    .toCompletableFuture()
                    .join();

            long heapBefore = usedHeapAfterGc();
            long start = System.nanoTime();
            List<LockProvider.Hold> holds = new ArrayList<>(n);
            long refused = inFlight(
                    n,
                    i -> provider.hold(heldKey(i)).thenAccept(h -> {
                        synchronized (holds) {
                            holds.add(h);
                        }
                    }));
            if (refused > 0) {
                throw new IllegalStateException(refused + " of " + n + " free locks could not be taken");
            }
            double acquirePerSecond = n * 1e9 / (System.nanoTime() - start);
            double heapPerHold = (usedHeapAfterGc() - heapBefore) / (double) n;

            Occupancy.Slot slot = Occupancy.local(1).slot(PROBE_KEY);
            CommandStats.Sampler redisCounters = new CommandStats.Sampler(admin);
            try (GcPauses pauses = new GcPauses()) {
                Outcome o = Workload.threads(
                        List.of(probe),
                        List.of(slot),
                        null,
                        config.warmup(),
                        config.heldWindow(),
                        Workload.Window.both(redisCounters, pauses));
                long gone = n - stillHeld(provider, n);
                long releaseRefused = inFlight(n, i -> holds.get(i).release());
                long lost = Math.max(Math.max(provider.leaseLossesReported(), gone), releaseRefused);
                // Read after the check and the releases: by then the window's GC notifications have come.
                RunResult.Held held =
                        new RunResult.Held(n, heapPerHold, acquirePerSecond, lost, pauses.longestMillis());
                return RunResult.of(
                        Scenario.HELD_LOCKS, library, o, List.of(), redisCounters.before, redisCounters.after, held);
            }
        }
    }

    private static String heldKey(int i) {
        return "bench-held-" + i;
    }

    /**
     * Runs {@code call} for 0..n-1 with at most {@link #IN_FLIGHT} at a time and waits for all;
     * returns how many failed.
     */
    private static long inFlight(int n, Function<Integer, CompletionStage<?>> call) throws InterruptedException {
        Semaphore permits = new Semaphore(IN_FLIGHT);
        AtomicLong failed = new AtomicLong();
        AtomicReference<Throwable> first = new AtomicReference<>();
        for (int i = 0; i < n; i++) {
            permits.acquire();
            call.apply(i).whenComplete((ignored, error) -> {
                if (error != null) {
                    failed.incrementAndGet();
                    first.compareAndSet(null, error);
                }
                permits.release();
            });
        }
        permits.acquire(IN_FLIGHT);
        if (first.get() != null) {
            System.err.println("[held locks] " + failed.get() + " calls failed, first: " + first.get());
        }
        return failed.get();
    }

    /** How many of the held keys still exist in Redis. */
    private long stillHeld(LockProvider provider, int n) {
        long existing = 0;
        int batch = 1000;
        for (int from = 0; from < n; from += batch) {
            String[] keys = new String[Math.min(batch, n - from)];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = provider.redisKey(heldKey(from + i));
            }
            existing += admin.exists(keys);
        }
        return existing;
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
