package dev.distlock.spring.autoconfigure;

import java.time.Duration;

/** Settings of the distributedLock health indicator, under {@code distlock.health.*}. */
public class DistributedLockHealthProperties {

    /** How long a lease loss stays in the health details. */
    private Duration leaseLossWindow = Duration.ofMinutes(15);

    /** How long the health check waits for Redis before it reports DOWN. */
    private Duration timeout = Duration.ofSeconds(1);

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public Duration getLeaseLossWindow() {
        return leaseLossWindow;
    }

    public void setLeaseLossWindow(Duration leaseLossWindow) {
        this.leaseLossWindow = leaseLossWindow;
    }
}
