package dev.distlock.benchmark;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisSemaphore;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisURI;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.redisson.Redisson;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Semaphore acquire + release, distlock against Redisson's {@code RPermitExpirableSemaphore} (Redisson's
 * semaphore whose permits expire, as distlock's are leased), on one Redis started here, in one run: one
 * thread on an uncontended semaphore, and 8 threads on a semaphore of 2 permits. Rounds alternate the
 * libraries; each scenario reports ops/s per round and the distlock/Redisson ratio's min and max. A
 * check outside both libraries counts holders: more than the permits at once fails the run.
 *
 * <p>Run: {@code java -jar lock-benchmarks/target/lock-benchmarks.jar semaphores [rounds] [seconds per round]}.
 */
final class SemaphoreBenchmark {

    static final String COMMAND = "semaphores";

    /** Redisson's permits get this lease, as distlock's get the watchdog's 30 s renewed lease. */
    private static final long LEASE_SECONDS = 30;

    private SemaphoreBenchmark() {}

    /** One library's semaphore: take one permit, give it back. */
    private interface Permits {
        AutoCloseable take() throws Exception;
    }

    static int main(String[] args, PrintStream out) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 3;
        try (RedisServer redis = RedisServer.start();
                LockClient distlock = LockClient.create(RedisURI.create(redis.uri()))) {
            Config config = new Config();
            config.useSingleServer().setAddress("redis://127.0.0.1:" + redis.port());
            RedissonClient redisson = Redisson.create(config);
            try {
                out.printf(
                        "redis-server on port %d; %d rounds of %d s per library and scenario%n%n",
                        redis.port(), rounds, seconds);
                out.println("| scenario | distlock ops/s (min-max) | Redisson ops/s (min-max) | ratio (min-max) |");
                out.println("| --- | --- | --- | --- |");
                boolean ok = scenario(out, "uncontended, 1 thread", 1, 1, rounds, seconds, distlock, redisson);
                ok &= scenario(out, "8 threads on 2 permits", 8, 2, rounds, seconds, distlock, redisson);
                return ok ? 0 : 1;
            } finally {
                redisson.shutdown();
            }
        }
    }

    private static boolean scenario(
            PrintStream out,
            String title,
            int threads,
            int permits,
            int rounds,
            long seconds,
            LockClient distlock,
            RedissonClient redisson)
            throws Exception {
        RedisSemaphore ours = distlock.getSemaphore("bench-sem-" + threads, permits);
        RPermitExpirableSemaphore theirs = redisson.getPermitExpirableSemaphore("bench-rsem-" + threads);
        theirs.trySetPermits(permits);
        Permits distlockPermits = () -> ours.acquire();
        Permits redissonPermits = () -> {
            String id = theirs.acquire(LEASE_SECONDS, TimeUnit.SECONDS);
            return () -> theirs.release(id);
        };
        run(distlockPermits, threads, permits, 1); // warm-up
        run(redissonPermits, threads, permits, 1);
        List<Double> ourRates = new ArrayList<>();
        List<Double> theirRates = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            double a = run(distlockPermits, threads, permits, seconds);
            double b = run(redissonPermits, threads, permits, seconds);
            if (a < 0 || b < 0) {
                out.println("| " + title + " | more holders than permits seen: run failed | | |");
                return false;
            }
            ourRates.add(a);
            theirRates.add(b);
            ratios.add(a / b);
        }
        out.printf(
                Locale.ROOT,
                "| %s | %s | %s | %s |%n",
                title,
                range(ourRates, "%.0f"),
                range(theirRates, "%.0f"),
                range(ratios, "%.2f"));
        return true;
    }

    /** Acquire + release per second over {@code seconds}; -1 when more than {@code permits} held at once. */
    private static double run(Permits semaphore, int threads, int permits, long seconds) throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicLong cycles = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                try {
                    while (System.nanoTime() - end < 0) {
                        try (AutoCloseable permit = semaphore.take()) {
                            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            inside.decrementAndGet();
                        }
                        cycles.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a semaphore call failed", failure.get());
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        return most.get() > permits ? -1 : cycles.get() / elapsed;
    }

    private static String range(List<Double> values, String format) {
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return String.format(Locale.ROOT, format + "-" + format, min, max);
    }
}
