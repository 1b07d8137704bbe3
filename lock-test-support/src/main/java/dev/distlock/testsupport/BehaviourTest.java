package dev.distlock.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * A behaviour test: what locks and locked calls do over time on a real Redis (or in local mode's store):
 * waiting and waking, leases and the watchdog, hand-offs, fairness, async and reactive holds, lease loss,
 * an annotated method's calls in a context. Tagged {@value #TAG}, which {@code ./mvnw verify -P fast}
 * leaves out: the fast lane keeps the script, contract, unit and context tests, the full lane runs all.
 * The default timeout of {@code junit-platform.properties} applies.
 *
 * <pre>{@code
 * @BehaviourTest
 * class RedisLockWaitTest { ... }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag(BehaviourTest.TAG)
public @interface BehaviourTest {

    /** The JUnit tag of the behaviour tests. */
    String TAG = "behaviour";
}
