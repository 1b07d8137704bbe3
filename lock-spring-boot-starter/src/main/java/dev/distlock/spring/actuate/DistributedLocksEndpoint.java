package dev.distlock.spring.actuate;

import dev.distlock.spring.execution.ActiveHolds;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * {@code /actuator/distributedlocks}: the locks this instance holds through {@code @DistributedLock}
 * and {@code LockTemplate} right now. Read-only; see {@link ForceUnlockDistributedLocksEndpoint} for
 * the opt-in force-unlock.
 */
@Endpoint(id = DistributedLocksEndpoint.ID)
public class DistributedLocksEndpoint {

    /** The endpoint id. */
    public static final String ID = "distributedlocks";

    static final String SCOPE = "Holds taken through @DistributedLock and LockTemplate on this instance;"
            + " holds taken directly through LockClient are not listed";

    private final ActiveHolds holds;
    private final String mode;

    public DistributedLocksEndpoint(ActiveHolds holds, String mode) {
        this.holds = holds;
        this.mode = mode;
    }

    @ReadOperation
    public HoldsDescriptor holds() {
        return new HoldsDescriptor(
                mode,
                SCOPE,
                holds.list().stream().map(DistributedLocksEndpoint::describe).toList());
    }

    private static HoldDescriptor describe(ActiveHolds.Entry entry) {
        Long leaseLeftMs;
        String leaseError = null;
        try {
            Duration left = entry.lock().remainingLease();
            leaseLeftMs = left.toMillis();
        } catch (RuntimeException e) { // Redis down or slow: show the hold anyway, say why the lease is unknown
            leaseLeftMs = null;
            leaseError = e.getMessage();
        }
        return new HoldDescriptor(
                entry.request().label(),
                String.join(", ", entry.request().keys()),
                entry.request().metricType(),
                entry.ownerThread(),
                entry.since(),
                entry.heldFor().toMillis(),
                entry.fencingTokens(),
                entry.watchdog() ? "watchdog" : "fixed",
                entry.request().leaseTime() == null
                        ? null
                        : entry.request().leaseTime().toMillis(),
                leaseLeftMs,
                leaseError);
    }

    /** The endpoint's answer. */
    public record HoldsDescriptor(String mode, String scope, List<HoldDescriptor> holds) {}

    /**
     * One hold.
     *
     * @param name the declared name (metrics name)
     * @param key the resolved key (keys, comma-separated, for a multi-key lock)
     * @param type REENTRANT, FAIR, READ, WRITE or REDLOCK
     * @param ownerThread the thread that holds it; for an async or reactive call, which no thread owns, a note saying so
     * @param heldSince when it was granted
     * @param heldForMs how long it has been held
     * @param fencingTokens the fencing token of each key
     * @param lease {@code watchdog} (renewed while held) or {@code fixed}
     * @param fixedLeaseMs the fixed lease, or null for the watchdog
     * @param leaseLeftMs the lease left on the lock in Redis (shortest among the keys), or null when it could not be read
     * @param leaseError why the lease could not be read, or null
     */
    public record HoldDescriptor(
            String name,
            String key,
            String type,
            String ownerThread,
            Instant heldSince,
            long heldForMs,
            Map<String, Long> fencingTokens,
            String lease,
            Long fixedLeaseMs,
            Long leaseLeftMs,
            String leaseError) {}
}
