package dev.distlock.core;

/**
 * Thrown by {@code unlock()} when the hold's lease ran out or was lost before the call: another
 * owner may have held the lock while this one still ran. Protect such resources with the fencing
 * token as well. {@link #getLoss()} says how it was lost, and the message gives the advice for
 * that cause:
 *
 * <pre>{@code
 * } catch (LockLeaseExpiredException e) {
 *     if (e.getLoss() == LockLeaseExpiredException.Loss.LEASE_RAN_OUT) { ... }   // the explicit lease was too short
 * }</pre>
 */
public class LockLeaseExpiredException extends IllegalMonitorStateException {

    /** How a hold was lost, each with what to do about it. */
    public enum Loss {
        /** Its explicit (fixed) lease ran out while the work still ran. */
        LEASE_RAN_OUT("the explicit lease was shorter than the work: use the watchdog lease (no lease time),"
                + " which is renewed while the work runs, or an explicit lease longer than the work's longest run"),
        /**
         * Redis no longer had the key before the lease ended, or did not answer the watchdog's renewals
         * for a whole lease: a longer lease would not have helped.
         */
        KEY_LOST("Redis lost the lock's key before its lease ended, so a longer lease would not have helped: it was"
                + " evicted (use maxmemory-policy noeviction), lost in a Redis restart without persistence or a failover,"
                + " or force-unlocked by an operator; or Redis did not answer the watchdog's renewals for a whole"
                + " lease (an outage or pause: a longer watchdog lease rides out longer ones)"),
        /** An operator force-unlocked it while it was held. */
        FORCE_UNLOCKED("it was force-unlocked (an operator's action), so this work ran on unprotected: force-unlock"
                + " only locks whose holder is known to be gone"),
        /** Its lock client was closed (usually at shutdown) while the work still ran. */
        CLIENT_CLOSED("the lock client was closed while the work still ran, so the lease was no longer renewed:"
                + " let running work end before the client closes (graceful shutdown)"),
        /** Not known; the reason in the message says what was seen. */
        UNKNOWN("use the watchdog lease or an explicit lease longer than the work, and keep Redis from losing keys"
                + " (maxmemory-policy noeviction)");

        private final String advice;

        Loss(String advice) {
            this.advice = advice;
        }

        /** What to do about a loss of this kind. */
        public String advice() {
            return advice;
        }
    }

    private final String lockName;
    private final Loss loss;

    /** A loss of unknown cause: the message gives general advice. */
    public LockLeaseExpiredException(String lockName, String reason) {
        this(lockName, reason, Loss.UNKNOWN);
    }

    /**
     * @param reason what was seen, such as "renewal found the lock gone"
     * @param loss how it was lost, which decides the advice in the message
     */
    public LockLeaseExpiredException(String lockName, String reason, Loss loss) {
        super("Lock '" + lockName + "' was lost while held: " + reason + ". Another owner may have run meanwhile; "
                + loss.advice());
        this.lockName = lockName;
        this.loss = loss;
    }

    /** The name of the lock that was lost. */
    public String getLockName() {
        return lockName;
    }

    /** How it was lost. */
    public Loss getLoss() {
        return loss;
    }
}
