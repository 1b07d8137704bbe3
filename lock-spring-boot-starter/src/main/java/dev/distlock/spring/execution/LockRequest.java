package dev.distlock.spring.execution;

import dev.distlock.core.LockType;
import dev.distlock.spring.annotation.OnLostBeforeCommit;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One call's lock, as {@code @DistributedLock} or {@code LockTemplate} asks for it. Infrastructure of
 * the starter, not API.
 *
 * @param caller how errors name the caller, e.g. {@code OrderService.pay(long)} or {@code LockTemplate 'payments'}
 * @param label the fixed name used in metrics, traces and the Actuator endpoint
 * @param type the kind of lock
 * @param redlock whether the lock is a RedLock over distlock.redlock.nodes
 * @param keys the resolved key or keys
 * @param multi whether the keys are locked together as one multi-lock
 * @param waitTime how long to wait
 * @param leaseTime fixed lease, or {@code null} for the watchdog
 * @param holdAtLeast how long after the grant the lock stays taken when the work ends sooner ({@code ZERO}: not kept)
 * @param maxHold the call's own cap on how long the watchdog renews its lock, or {@code null} for distlock.max-hold
 * @param permits the number of permits of the semaphore the call takes one of ({@code type} SEMAPHORE or
 *        FAIR_SEMAPHORE); 0 for a lock
 * @param onLostBeforeCommit what a transaction begun inside the work does when the lock is lost before it commits
 */
public record LockRequest(
        String caller,
        String label,
        LockType type,
        boolean redlock,
        List<String> keys,
        boolean multi,
        Duration waitTime,
        Duration leaseTime,
        Duration holdAtLeast,
        @Nullable Duration maxHold,
        int permits,
        OnLostBeforeCommit onLostBeforeCommit) {

    /** The {@code type} tag of meters and observations: the annotation's spelling, or REDLOCK. */
    public String metricType() {
        return redlock ? "REDLOCK" : type.name();
    }
}
