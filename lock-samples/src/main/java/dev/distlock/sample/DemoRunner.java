package dev.distlock.sample;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.spring.metrics.LockMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * {@code --demo}: many customers book the same SKU at once, first through the locked
 * {@link StockService#book}, then, for comparison, without the lock; then the nightly report is
 * started several times at once. Prints a summary; the exit code is 1 if the locked run oversold.
 */
@Component
@ConditionalOnBooleanProperty("sample.demo")
class DemoRunner implements ApplicationRunner, ExitCodeGenerator {

    static final int STOCK = 100;
    static final int BOOKINGS = 300;
    static final int THREADS = 16;
    static final int REPORT_RUNS = 4;

    private final StockService stock;
    private final NightlyReport report;
    private final StringRedisTemplate redis;
    private final ObjectProvider<MeterRegistry> meters;
    private final PrintStream out = System.out; // a summary for a person, not log lines

    private volatile Sale locked;

    DemoRunner(
            StockService stock, NightlyReport report, StringRedisTemplate redis, ObjectProvider<MeterRegistry> meters) {
        this.stock = stock;
        this.report = report;
        this.redis = redis;
        this.meters = meters;
    }

    /** What one round of concurrent bookings did. */
    record Sale(long initial, int sold, int soldOut, int rejected, int failed, long stockLeft, Duration took) {

        /** Bookings confirmed for units the stock never lost (lost updates): a customer who gets nothing. */
        long oversold() {
            return sold - (initial - stockLeft);
        }
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        out.println();
        out.println("=== distlock demo ==========================================================");
        out.printf("%d units in stock, %d bookings of the same SKU on %d threads.%n", STOCK, BOOKINGS, THREADS);
        out.println("Each booking reads the stock (GET) and writes it back minus one (SET): not atomic.");

        locked = sell("demo-locked", stock::book);
        out.println();
        out.println("With @DistributedLock(key = \"'stock:' + #sku\", waitTime = \"2s\"):");
        print(locked);

        Sale unlocked = sell("demo-unlocked", stock::bookWithoutLock);
        out.println();
        out.println("The same bookings without the lock, for comparison:");
        print(unlocked);

        int[] ranAndSkipped = runReportsAtOnce();
        out.println();
        out.printf("Nightly report started %d times at once (waitTime = \"0\", onFailure = SKIP):%n", REPORT_RUNS);
        out.printf("  ran %d, skipped %d%n", ranAndSkipped[0], ranAndSkipped[1]);

        printMetrics();
        out.println();
        out.println(
                locked.oversold() == 0 && locked.failed() == 0
                        ? "RESULT: OK - with the lock, nothing was oversold."
                        : "RESULT: FAILED - the locked run oversold " + locked.oversold() + " or failed "
                                + locked.failed() + " bookings.");
        out.println("Run without --demo to keep the service running: see lock-samples/README.md for the endpoints.");
        out.println("============================================================================");
        out.println();
    }

    @Override
    public int getExitCode() {
        Sale s = locked;
        return s != null && s.oversold() == 0 && s.failed() == 0 ? 0 : 1;
    }

    /** The result of the locked run, once the demo has run. */
    Sale lockedSale() {
        return locked;
    }

    private Sale sell(String sku, Function<String, BookingResult> book) throws InterruptedException {
        redis.delete(StockService.stockKey(sku)); // start from exactly STOCK, whatever earlier runs left
        long initial = stock.restock(sku, STOCK);
        AtomicInteger sold = new AtomicInteger();
        AtomicInteger soldOut = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1); // every thread starts together, for the most contention
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            for (int i = 0; i < BOOKINGS; i++) {
                pool.execute(() -> {
                    try {
                        start.await();
                        (book.apply(sku) == BookingResult.BOOKED ? sold : soldOut).incrementAndGet();
                    } catch (LockAcquisitionException busy) {
                        rejected.incrementAndGet();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (RuntimeException e) {
                        failed.incrementAndGet();
                        out.println("  booking failed: " + e);
                    }
                });
            }
            long t0 = System.nanoTime();
            start.countDown();
            pool.shutdown();
            if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("Bookings did not finish within a minute");
            }
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            return new Sale(initial, sold.get(), soldOut.get(), rejected.get(), failed.get(), stock.stock(sku), took);
        } finally {
            pool.shutdownNow();
        }
    }

    private int[] runReportsAtOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(REPORT_RUNS);
        try {
            List<Future<Optional<NightlyReport.Report>>> runs = new ArrayList<>();
            for (int i = 0; i < REPORT_RUNS; i++) {
                runs.add(pool.submit(report::run));
            }
            int ran = 0;
            for (Future<Optional<NightlyReport.Report>> run : runs) {
                ran += run.get(1, TimeUnit.MINUTES).isPresent() ? 1 : 0;
            }
            return new int[] {ran, REPORT_RUNS - ran};
        } finally {
            pool.shutdownNow();
        }
    }

    private void print(Sale s) {
        out.printf("  sold        %4d%n", s.sold());
        out.printf("  sold out    %4d   (refused: no stock left)%n", s.soldOut());
        out.printf("  rejected    %4d   (lock still busy after waitTime)%n", s.rejected());
        if (s.failed() > 0) {
            out.printf("  failed      %4d   (errors, printed above)%n", s.failed());
        }
        out.printf("  stock left  %4d%n", s.stockLeft());
        out.printf(
                "  oversold    %4d   (sold - (initial - stock left): bookings for units that never left the stock)%n",
                s.oversold());
        out.printf("  took        %4d ms%n", s.took().toMillis());
    }

    /** The same numbers the service shows at /actuator/metrics/distributed.lock.acquire. */
    private void printMetrics() {
        MeterRegistry registry = meters.getIfAvailable();
        if (registry == null) {
            return;
        }
        out.println();
        out.println("Lock metrics (" + LockMetrics.ACQUIRE + ", tagged by the lock's name, never its key):");
        for (Timer t : registry.find(LockMetrics.ACQUIRE).timers()) {
            if (t.count() == 0) {
                continue; // registered at start-up for dashboards, never recorded in this run
            }
            out.printf(
                    "  name=%-20s outcome=%-9s count=%4d  mean wait=%6.2f ms  max wait=%7.2f ms%n",
                    t.getId().getTag(LockMetrics.NAME),
                    t.getId().getTag(LockMetrics.OUTCOME),
                    t.count(),
                    t.mean(TimeUnit.MILLISECONDS),
                    t.max(TimeUnit.MILLISECONDS));
        }
    }
}
