package dev.distlock.sample;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLockFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job that every instance schedules, but that only one of them should run: the usual
 * "one instance runs it, the others skip" use of a lock. Also started by
 * {@code POST /reports/nightly}, to try it by hand.
 */
@Component
public class NightlyReport {

    private static final Log log = LogFactory.getLog(NightlyReport.class);

    private final StringRedisTemplate redis;
    private final StockService stock;
    private final Duration work;

    public NightlyReport(
            StringRedisTemplate redis, StockService stock, @Value("${sample.report-work:0ms}") Duration work) {
        this.redis = redis;
        this.stock = stock;
        this.work = work;
    }

    /** What one run found: units in stock per SKU. */
    public record Report(Instant generatedAt, Map<String, Long> stockBySku) {}

    /**
     * Builds the report, or returns {@code Optional.empty()} without running when another run
     * (here or in another instance) holds the lock. {@code waitTime = "0"} matters: with a wait,
     * a second instance would wait for the first to finish and then run the job again.
     */
    @Scheduled(cron = "${sample.report-cron:0 0 2 * * *}")
    @DistributedLock(waitTime = "0", onFailure = OnLockFailure.SKIP)
    public Optional<Report> run() {
        Map<String, Long> bySku = new TreeMap<>();
        for (String sku : redis.opsForSet().members(StockService.SKUS_KEY)) {
            bySku.put(sku, stock.stock(sku));
        }
        pretendToWork();
        log.info("Nightly report: " + bySku.size() + " SKUs");
        return Optional.of(new Report(Instant.now(), bySku));
    }

    /** Real reports take a while; this makes overlapping runs, and so skipping, easy to see. */
    private void pretendToWork() {
        try {
            Thread.sleep(work.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while building the report", e);
        }
    }
}
