package dev.distlock.spring.metrics;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;

/**
 * Records lock events as Micrometer meters, tagged by the lock's name: the declared name for the
 * starter's calls, and for locks used directly the name they were given, else their key.
 * Acquisitions and releases made by {@code @DistributedLock} and {@code LockTemplate} are left to
 * {@link LockInstrumentation}, which counts one per call (their locks come from a
 * {@code LockClient.timedByCaller()} view, so their events say so); this listener counts those of
 * locks used directly through {@code LockClient}, and renewals and lost leases of all.
 */
public final class MicrometerLockListener implements LockListener {

    private final MeterRegistry registry;

    public MicrometerLockListener(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void onAcquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {
        if (lock.timedByCaller()) {
            return;
        }
        Timer.builder(LockMetrics.ACQUIRE)
                .description("Time spent acquiring distributed locks")
                .tag(LockMetrics.NAME, lock.name())
                .tag(LockMetrics.TYPE, LockInstrumentation.type(lock.type()))
                .tag(LockMetrics.OUTCOME, lower(outcome))
                .tag(LockMetrics.ERROR_TAG, errorOf(outcome))
                .register(registry)
                .record(waited);
    }

    @Override
    public void onRelease(LockInfo lock, Duration held) {
        if (lock.timedByCaller()) {
            return;
        }
        Timer.builder(LockMetrics.HELD)
                .description("Time distributed locks were held")
                .tag(LockMetrics.NAME, lock.name())
                .tag(LockMetrics.TYPE, LockInstrumentation.type(lock.type()))
                .tag(LockMetrics.ERROR_TAG, LockMetrics.NO_ERROR)
                .register(registry)
                .record(held);
    }

    @Override
    public void onRenewal(LockInfo lock, RenewalOutcome outcome) {
        renewals(registry, lower(outcome)).increment();
    }

    @Override
    public void onLeaseLost(LockInfo lock, String reason) {
        lost(registry, lock.name(), LockInstrumentation.type(lock.type())).increment();
    }

    @Override
    public void onLongHold(LockInfo lock, Duration heldFor) {
        Counter.builder(LockMetrics.LONG_HOLDS)
                .description("Holds that ran past the long-hold fraction of distlock.max-hold")
                .tag(LockMetrics.NAME, lock.name())
                .tag(LockMetrics.TYPE, LockInstrumentation.type(lock.type()))
                .register(registry)
                .increment();
    }

    /** The renewals counter of one outcome (renewed, lost, error); also registered at start-up. */
    static Counter renewals(MeterRegistry registry, String outcome) {
        return Counter.builder(LockMetrics.RENEWALS)
                .description("Watchdog lease renewals")
                .tag(LockMetrics.OUTCOME, outcome)
                .register(registry);
    }

    /** The lost-holds counter of one lock; also registered at start-up. */
    static Counter lost(MeterRegistry registry, String name, String type) {
        return Counter.builder(LockMetrics.LOST)
                .description("Distributed locks lost while still held")
                .tag(LockMetrics.NAME, name)
                .tag(LockMetrics.TYPE, type)
                .register(registry);
    }

    /**
     * The error tag for a lock used directly: the listener is not told the exception, so the type that outcome
     * usually has stands for it (the starter's own calls get the exception's simple name from Micrometer's meter
     * observation handler).
     */
    private static String errorOf(AcquireOutcome outcome) {
        return switch (outcome) {
            case ACQUIRED, TIMEOUT -> LockMetrics.NO_ERROR;
            case UNAVAILABLE -> "LockUnavailableException";
            case ERROR -> "LockException";
        };
    }

    static String lower(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }
}
