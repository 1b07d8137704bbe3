package dev.distlock.spring.metrics;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Instruments each lock call as two Micrometer observations: {@link LockMetrics#ACQUIRE} (the wait)
 * and {@link LockMetrics#HELD} (the hold, in scope while the work runs, so the work's own spans are
 * its children; for an async call, in scope while the method is invoked). Low-cardinality key values only: {@link LockMetrics#NAME}, {@link LockMetrics#TYPE}
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
        Observation waiting = Observation.createNotStarted(LockMetrics.ACQUIRE, registry)
                .contextualName("lock wait " + name)
                .lowCardinalityKeyValue(LockMetrics.NAME, name)
                .lowCardinalityKeyValue(LockMetrics.TYPE, type)
                .start();
        return new Acquisition() {
            @Override
            public Holding acquired() {
                Observation held = hold();
                Observation.Scope scope = held.openScope();
                return leaseLost -> {
                    scope.close();
                    stop(held, leaseLost);
                };
            }

            @Override
            public Holding acquiredAsync() {
                Observation held = hold();
                return new Holding() {
                    @Override
                    public void released(Throwable leaseLost) {
                        stop(held, leaseLost);
                    }

                    @Override
                    public AutoCloseable inScope() {
                        return held.openScope();
                    }
                };
            }

            private Observation hold() {
                waiting.lowCardinalityKeyValue(LockMetrics.OUTCOME, LockMetrics.ACQUIRED)
                        .stop();
                return Observation.createNotStarted(LockMetrics.HELD, registry)
                        .contextualName("lock held " + name)
                        .lowCardinalityKeyValue(LockMetrics.NAME, name)
                        .lowCardinalityKeyValue(LockMetrics.TYPE, type)
                        .start();
            }

            private void stop(Observation held, Throwable leaseLost) {
                if (leaseLost != null) {
                    held.error(leaseLost);
                }
                held.stop();
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
