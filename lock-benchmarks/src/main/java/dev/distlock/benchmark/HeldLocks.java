package dev.distlock.benchmark;

import io.lettuce.core.api.sync.RedisCommands;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

/**
 * The held-locks scenario: one client takes {@code heldLocks} watchdog locks and keeps them; then,
 * on the same client, one thread locks and unlocks a free key for a window long enough for every
 * held lock to be renewed at least twice. The probe's latency (max and p99) shows how long an
 * ordinary lock call waits behind renewal traffic; the used heap (after GC) before and after taking
 * the holds gives the heap per held lock; holds lost meanwhile are false losses, as nothing else
 * touches those keys.
 */
final class HeldLocks {

    /** Acquisitions in flight while taking the holds: enough to fill the pipe, few enough not to time out. */
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
            provider.hold("bench-prime-hold").toCompletableFuture().join();

            long heapBefore = usedHeapAfterGc();
            long start = System.nanoTime();
            List<Object> holds = takeHolds(provider, n);
            double acquirePerSecond = n * 1e9 / (System.nanoTime() - start);
            double heapPerHold = (usedHeapAfterGc() - heapBefore) / (double) n;

            Occupancy.Slot slot = Occupancy.local(1).slot(PROBE_KEY);
            CommandStats.Sampler redisCounters = new CommandStats.Sampler(admin);
            Outcome o = Workload.threads(
                    List.of(probe), List.of(slot), null, config.warmup(), config.heldWindow(), redisCounters);
            long lost = Math.max(provider.leaseLossesReported(), n - stillHeld(provider, n));
            // Keeps the holds reachable up to here, as an application keeps what it holds.
            if (holds.size() != n) {
                throw new IllegalStateException("took " + holds.size() + " of " + n + " holds");
            }
            RunResult.Held held = new RunResult.Held(n, heapPerHold, acquirePerSecond, lost);
            return RunResult.of(
                    Scenario.HELD_LOCKS, library, o, List.of(), redisCounters.before, redisCounters.after, held);
        }
    }

    private static String heldKey(int i) {
        return "bench-held-" + i;
    }

    /** Takes {@code n} holds with a bounded number of acquisitions in flight; returns what the library handed out. */
    private static List<Object> takeHolds(LockProvider provider, int n) throws InterruptedException {
        List<Object> holds = new ArrayList<>(n);
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int i = 0; i < n && failure.get() == null; i++) {
            inFlight.acquire();
            provider.hold(heldKey(i)).whenComplete((hold, error) -> {
                if (error != null) {
                    failure.compareAndSet(null, error);
                } else {
                    synchronized (holds) {
                        holds.add(hold == null ? Boolean.TRUE : hold);
                    }
                }
                inFlight.release();
            });
        }
        inFlight.acquire(IN_FLIGHT);
        if (failure.get() != null) {
            throw new IllegalStateException("Taking " + n + " holds failed: " + failure.get(), failure.get());
        }
        return holds;
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
