package dev.distlock.core;

/**
 * Thrown by {@code unlock()} when the hold's lease ran out or was lost before the call: another
 * owner may have held the lock while this one still ran. Protect such resources with the fencing
 * token as well.
 */
public class LockLeaseExpiredException extends IllegalMonitorStateException {

    private final String lockName;

    public LockLeaseExpiredException(String lockName, String reason) {
        super("Lock '" + lockName + "' was lost while held: " + reason
                + ". Another owner may have run meanwhile; prefer the watchdog lease or a longer explicit lease");
        this.lockName = lockName;
    }

    /** The name of the lock that was lost. */
    public String getLockName() {
        return lockName;
    }
}
