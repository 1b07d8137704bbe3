package dev.distlock.spring.autoconfigure;

/** Settings of the distributedlocks Actuator endpoint, under {@code distlock.actuator.*}. */
public class DistributedLockActuatorProperties {

    private final ForceUnlock forceUnlock = new ForceUnlock();

    public ForceUnlock getForceUnlock() {
        return forceUnlock;
    }

    /** Settings of the endpoint's force-unlock write operation. */
    public static class ForceUnlock {

        /** Whether the endpoint offers force-unlock of a key (dangerous: the holder runs on unprotected). */
        private boolean enabled = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
