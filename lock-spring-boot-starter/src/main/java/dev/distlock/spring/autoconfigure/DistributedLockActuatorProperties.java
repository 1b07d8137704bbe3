package dev.distlock.spring.autoconfigure;

/** Settings of the distributedlocks Actuator endpoint, under {@code distlock.actuator.*}. */
public class DistributedLockActuatorProperties {

    private final ForceUnlock forceUnlock = new ForceUnlock();

    /** Most lock keys GET /actuator/distributedlocks/all reads from Redis (SCAN under the key prefix) in one listing. */
    private int maxListedLocks = 1000;

    public int getMaxListedLocks() {
        return maxListedLocks;
    }

    public void setMaxListedLocks(int maxListedLocks) {
        this.maxListedLocks = maxListedLocks;
    }

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
