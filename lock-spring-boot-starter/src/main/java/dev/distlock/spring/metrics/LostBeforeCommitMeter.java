package dev.distlock.spring.metrics;

import dev.distlock.spring.execution.LockRequest;
import dev.distlock.spring.transaction.LostBeforeCommitReport;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** Counts locks found lost before a commit in {@link LockMetrics#LOST_BEFORE_COMMIT}. Infrastructure of the starter, not API. */
public final class LostBeforeCommitMeter implements LostBeforeCommitReport {

    private final MeterRegistry registry;

    public LostBeforeCommitMeter(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void lost(LockRequest request, boolean committed) {
        counter(
                        registry,
                        request.label(),
                        request.metricType(),
                        committed ? LockMetrics.COMMITTED : LockMetrics.ROLLED_BACK)
                .increment();
    }

    /** The counter of one lock and outcome; registered at zero at start-up for every declared lock too. */
    static Counter counter(MeterRegistry registry, String name, String type, String outcome) {
        return Counter.builder(LockMetrics.LOST_BEFORE_COMMIT)
                .description("Transactions begun inside a lock whose lock was lost just before they committed")
                .tag(LockMetrics.NAME, name)
                .tag(LockMetrics.TYPE, type)
                .tag(LockMetrics.OUTCOME, outcome)
                .register(registry);
    }
}
