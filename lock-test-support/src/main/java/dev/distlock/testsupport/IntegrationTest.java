package dev.distlock.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * An integration test: a whole application or harness on a real Redis, as a user runs it: the sample and
 * the Actuator endpoints over HTTP, the locks beside other Redis clients (Jedis, Redisson) or on a
 * secured Redis (ACL, TLS), the benchmark's harness. Tagged {@value #TAG}, which
 * {@code ./mvnw verify -P fast} leaves out; the full lane runs it. The default timeout of
 * {@code junit-platform.properties} applies.
 *
 * <pre>{@code
 * @IntegrationTest
 * class SampleApplicationTest { ... }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Tag(IntegrationTest.TAG)
public @interface IntegrationTest {

    /** The JUnit tag of the integration tests. */
    String TAG = "integration";
}
