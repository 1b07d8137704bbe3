package dev.distlock.spring.autoconfigure;

/** Settings of lock metrics, under {@code distlock.metrics.*}. */
public class DistributedLockMetricsProperties {

    /** Whether lock metrics are recorded when a MeterRegistry is present; an application ObservationRegistry's meter handler still records the acquire/held timers (management.observations.enable.distributed.lock=false stops those). */
    private boolean enabled = true;

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }
}
