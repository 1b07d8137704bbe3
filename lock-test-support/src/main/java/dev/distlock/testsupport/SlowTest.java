package dev.distlock.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;

/**
 * A test of the full lane only: soak, scale, failover, Cluster resharding, Sentinel, child JVMs, thousands
 * of virtual threads. Tagged {@value #TAG}, which {@code ./mvnw verify -P fast} leaves out, and given a
 * longer timeout than the default of {@code junit-platform.properties}; a class whose methods need more
 * still states its own {@code @Timeout}, which wins over this one.
 *
 * <pre>{@code
 * @SlowTest
 * class SentinelFailoverTest { ... }
 * }</pre>
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Tag(SlowTest.TAG)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
public @interface SlowTest {

    /** The JUnit tag of the full lane's tests. */
    String TAG = "slow";
}
