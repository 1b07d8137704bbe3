package dev.distlock.spring.actuate;

import dev.distlock.core.HeldLock;
import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * {@code /actuator/distributedlocks}: the locks this instance holds through {@code @DistributedLock}
 * and {@code LockTemplate} right now, the others its lock clients hold, and the leader roles it leads. Read-only; see {@link ForceUnlockDistributedLocksEndpoint} for
 * the opt-in force-unlock.
 */
@Endpoint(id = DistributedLocksEndpoint.ID)
public class DistributedLocksEndpoint {

    /** The endpoint id. */
    public static final String ID = "distributedlocks";

    static final String SCOPE = "This instance's holds: 'holds' were taken through @DistributedLock and"
            + " LockTemplate, 'otherHolds' directly through the LockClient (or RedLockClient) beans";

    private final ActiveHolds holds;
    private final String mode;
    private final LockSource source;
    private final Supplier<Map<String, Long>> leading;
    private final @Nullable AllInstancesHolders allInstances;

    public DistributedLocksEndpoint(ActiveHolds holds, String mode, LockSource source) {
        this(holds, mode, source, Map::of, null);
    }

    /**
     * @param leading the leader roles this instance leads now, with their terms (the starter's {@code Leadership})
     * @param allInstances reads every instance's holders from Redis; null in local mode, which has no Redis
     */
    public DistributedLocksEndpoint(
            ActiveHolds holds,
            String mode,
            LockSource source,
            Supplier<Map<String, Long>> leading,
            @Nullable AllInstancesHolders allInstances) {
        this.holds = holds;
        this.mode = mode;
        this.source = source;
        this.leading = leading;
        this.allInstances = allInstances;
    }

    /**
     * {@code GET /actuator/distributedlocks/all}: the holders of every instance, read from Redis (SCAN under
     * the key prefix, bounded by distlock.actuator.max-listed-locks), each with its owner, instance, fencing
     * token and lease left. Any other selector, or local mode, gets 400 saying why.
     */
    @ReadOperation
    public WebEndpointResponse<Object> allInstances(@Selector String scope) {
        if (!"all".equals(scope)) {
            return new WebEndpointResponse<>(
                    Map.of(
                            "error",
                            "unknown selector '" + scope + "': GET /actuator/" + ID
                                    + "/all lists every instance's holders"),
                    WebEndpointResponse.STATUS_BAD_REQUEST);
        }
        if (allInstances == null) {
            return new WebEndpointResponse<>(
                    Map.of(
                            "error",
                            "distlock.mode=" + mode + " keeps locks in this JVM only: GET /actuator/" + ID
                                    + " lists them"),
                    WebEndpointResponse.STATUS_BAD_REQUEST);
        }
        try {
            return new WebEndpointResponse<>(allInstances.list());
        } catch (IllegalStateException e) {
            return new WebEndpointResponse<>(
                    Map.of("error", "could not read the locks in Redis: " + e.getMessage()), 503);
        }
    }

    @ReadOperation
    public HoldsDescriptor holds() {
        List<ActiveHolds.Entry> entries = holds.list();
        List<OtherHoldDescriptor> others = source.heldLocks().stream()
                .filter(held -> entries.stream().noneMatch(e -> takenBy(held, e)))
                .map(DistributedLocksEndpoint::describe)
                .toList();
        return new HoldsDescriptor(
                mode,
                SCOPE,
                entries.stream().map(DistributedLocksEndpoint::describe).toList(),
                others,
                leading.get());
    }

    /** Whether the client's {@code held} is the starter's hold {@code entry} (same key, same grant's token). */
    private static boolean takenBy(HeldLock held, ActiveHolds.Entry entry) {
        return entry.request().keys().contains(held.lock().key())
                && entry.fencingTokens().containsValue(held.fencingToken());
    }

    private static OtherHoldDescriptor describe(HeldLock held) {
        return new OtherHoldDescriptor(
                held.lock().name(),
                held.lock().key(),
                held.lock().type().name(),
                held.ownerThread() != null ? held.ownerThread() : "(a LockHandle: owned by no thread)",
                held.since(),
                held.fencingToken(),
                held.holdCount(),
                held.watchdog() ? "watchdog" : "fixed",
                held.validFor().toMillis());
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

    /**
     * The endpoint's answer.
     *
     * @param leading the leader roles this instance leads now, each with the term of its leadership
     */
    public record HoldsDescriptor(
            String mode,
            String scope,
            List<HoldDescriptor> holds,
            List<OtherHoldDescriptor> otherHolds,
            Map<String, Long> leading) {}

    /**
     * One hold taken directly through a lock client, not through the starter; what the client knows of
     * it, without asking Redis.
     *
     * @param name the name given with the lock ({@code getLock(key, name)}; the key when none was given)
     * @param key the key
     * @param type REENTRANT, FAIR, READ, WRITE or REDLOCK
     * @param ownerThread the thread that holds it, or a note saying a LockHandle owns it
     * @param heldSince when it was granted
     * @param fencingToken its fencing token
     * @param holdCount how many times its owner holds it
     * @param lease {@code watchdog} (renewed while held) or {@code fixed}
     * @param validForMs how long its lease is valid as far as the client knows
     */
    public record OtherHoldDescriptor(
            String name,
            String key,
            String type,
            String ownerThread,
            Instant heldSince,
            long fencingToken,
            int holdCount,
            String lease,
            long validForMs) {}

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
