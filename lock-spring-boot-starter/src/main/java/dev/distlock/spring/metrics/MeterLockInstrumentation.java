package dev.distlock.spring.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/** Records the starter's acquisitions and holds as the {@link LockMetrics#ACQUIRE} and {@link LockMetrics#HELD} timers. */
public final class MeterLockInstrumentation implements LockInstrumentation {

    private final MeterRegistry registry;

    public MeterLockInstrumentation(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Acquisition acquiring(String name, String type) {
        Timer.Sample waiting = Timer.start(registry);
        return new Acquisition() {
            @Override
            public Holding acquired() {
                waiting.stop(acquireTimer(name, type, LockMetrics.ACQUIRED));
                Timer.Sample holding = Timer.start(registry);
                return leaseLost -> holding.stop(Timer.builder(LockMetrics.HELD).description("Time distributed locks were held")
                        .tag(LockMetrics.NAME, name).tag(LockMetrics.TYPE, type).register(registry));
            }

            @Override
            public void failed(String outcome, Throwable error) {
                waiting.stop(acquireTimer(name, type, outcome));
            }
        };
    }

    private Timer acquireTimer(String name, String type, String outcome) {
        return Timer.builder(LockMetrics.ACQUIRE).description("Time spent acquiring distributed locks")
                .tag(LockMetrics.NAME, name).tag(LockMetrics.TYPE, type).tag(LockMetrics.OUTCOME, outcome).register(registry);
    }
}
