package dev.distlock.spring.aop;

import dev.distlock.spring.annotation.OnLockFailure;
import java.time.Duration;
import org.springframework.expression.Expression;

/**
 * A {@code @DistributedLock} method's settings, parsed and checked once at start-up.
 *
 * @param method how errors name the method, e.g. {@code OrderService.pay(long)}
 * @param label the fixed name used in metrics
 * @param literalKey the key when it is not an expression, else {@code null}
 * @param keyExpression the parsed SpEL key, else {@code null}
 * @param waitTime how long to wait
 * @param leaseTime fixed lease, or {@code null} for the watchdog
 * @param onFailure what to do when the lock stays busy
 * @param returnsOptional whether SKIP returns {@code Optional.empty()} instead of {@code null}
 */
record LockAttributes(String method, String label, String literalKey, Expression keyExpression, Duration waitTime,
        Duration leaseTime, OnLockFailure onFailure, boolean returnsOptional) {

    String keySource() {
        return literalKey != null ? literalKey : keyExpression.getExpressionString();
    }
}
