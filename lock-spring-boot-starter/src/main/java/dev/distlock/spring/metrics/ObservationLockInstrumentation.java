package dev.distlock.spring.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Instruments each lock call as two Micrometer observations: {@link LockMetrics#ACQUIRE} (the wait)
 * and {@link LockMetrics#HELD} (the hold, in scope while the work runs, so the work's own spans are
 * its children). Low-cardinality key values only: {@link LockMetrics#NAME}, {@link LockMetrics#TYPE}
 * and, for the wait, {@link LockMetrics#OUTCOME}; never the resolved key. The registry's handlers
 * turn them into meters (a meter handler: the timers keep the names above) and spans (a tracing
 * handler).
 */
public final class ObservationLockInstrumentation implements LockInstrumentation {

    private final ObservationRegistry registry;

    public ObservationLockInstrumentation(ObservationRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Acquisition acquiring(String name, String type) {
        Observation waiting = Observation.createNotStarted(LockMetrics.ACQUIRE, registry).contextualName("lock wait " + name)
                .lowCardinalityKeyValue(LockMetrics.NAME, name).lowCardinalityKeyValue(LockMetrics.TYPE, type).start();
        return new Acquisition() {
            @Override
            public Holding acquired() {
                waiting.lowCardinalityKeyValue(LockMetrics.OUTCOME, LockMetrics.ACQUIRED).stop();
                Observation held = Observation.createNotStarted(LockMetrics.HELD, registry).contextualName("lock held " + name)
                        .lowCardinalityKeyValue(LockMetrics.NAME, name).lowCardinalityKeyValue(LockMetrics.TYPE, type).start();
                Observation.Scope scope = held.openScope();
                return leaseLost -> {
                    scope.close();
                    if (leaseLost != null) {
                        held.error(leaseLost);
                    }
                    held.stop();
                };
            }

            @Override
            public void failed(String outcome, Throwable error) {
                waiting.lowCardinalityKeyValue(LockMetrics.OUTCOME, outcome);
                if (error != null) {
                    waiting.error(error);
                }
                waiting.stop();
            }
        };
    }
}
