package dev.distlock.spring.aop;

import dev.distlock.core.LockType;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.annotation.OnLostBeforeCommit;
import dev.distlock.spring.execution.CallStyle;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.Expression;

/**
 * A {@code @DistributedLock} method's settings, parsed and checked once at start-up.
 *
 * @param method how errors name the method, e.g. {@code OrderService.pay(long)}
 * @param label the fixed name used in metrics
 * @param type the kind of lock
 * @param redlock whether the lock is a RedLock over distlock.redlock.nodes
 * @param keys the key or keys, each a literal or a parsed SpEL expression
 * @param multi whether the keys are locked together as one multi-lock ({@code keys} attribute)
 * @param waitTime how long to wait
 * @param leaseTime fixed lease, or {@code null} for the watchdog
 * @param holdAtLeast how long after the grant the lock stays taken when the method returns sooner ({@code ZERO}: not kept)
 * @param maxHold the method's own cap on how long the watchdog renews its lock, or {@code null} for distlock.max-hold
 * @param permits the number of permits of the semaphore each call takes one of; 0 for a lock
 * @param onFailure what to do when the lock stays busy
 * @param onLostBeforeCommit what a transaction begun inside does when the lock is lost before it commits
 * @param returnsOptional whether SKIP returns (or completes the stage with) {@code Optional.empty()} instead of {@code null}
 * @param result how the method delivers its result, and so how long the lock is held
 */
record LockAttributes(
        String method,
        String label,
        LockType type,
        boolean redlock,
        List<Key> keys,
        boolean multi,
        Duration waitTime,
        Duration leaseTime,
        Duration holdAtLeast,
        @Nullable Duration maxHold,
        int permits,
        OnLockFailure onFailure,
        OnLostBeforeCommit onLostBeforeCommit,
        boolean returnsOptional,
        CallStyle result) {

    /** One key: a literal, or a SpEL expression evaluated per call. */
    record Key(String literal, Expression expression) {
        String source() {
            return literal != null ? literal : expression.getExpressionString();
        }
    }
}
