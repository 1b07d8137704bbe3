package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.RedisExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A key is refused for a null argument only when the null reaches the key, decided from the expression's
 * evaluation: a key that handles the null is accepted even when other data contains the text "null".
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NullArgumentKeyTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.server().port())
                .withBean(Tenants.class);
    }

    @Test
    void aKeyThatHandlesTheNullIsAcceptedWhenOtherDataContainsTheTextNull() {
        runner().run(context -> {
            Tenants tenants = context.getBean(Tenants.class);
            assertThat(tenants.elvis("nullsoft", null))
                    .as("locked under the key the expression gives")
                    .isEqualTo(":1");
            assertThat(tenants.elvis("acme", null)).isEqualTo(":1");
        });
    }

    @Test
    void aNullThatReachesTheKeyIsStillRefusedWhenOtherDataContainsTheTextNull() {
        runner().run(context -> {
            Tenants tenants = context.getBean(Tenants.class);
            assertThatThrownBy(() -> tenants.formatted("nullsoft", null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Tenants.formatted(String, Long)")
                    .hasMessageContaining("uses #id, which is null in this call")
                    .hasMessageContaining("the key would be \"fmt:nullsoft:null\"")
                    .hasMessageContaining("pass a value");
            assertThatThrownBy(() -> tenants.ternary("nullsoft", null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("uses #id, which is null in this call")
                    .hasMessageContaining("the key would be \"tern:nullsoft:null\"");
        });
    }

    /** Each method returns whether Redis holds the key it expects while it runs (":1"). */
    static class Tenants {
        @DistributedLock(key = "'elvis:' + #tenant + ':' + (#id ?: 'none')")
        public String elvis(String tenant, Long id) {
            return redis.server().command("EXISTS", "lock:{elvis:" + tenant + ":none}");
        }

        /** The null reaches the key through a call, not a concatenation. */
        @DistributedLock(key = "T(String).format('fmt:%s:%s', #tenant, #id)")
        public String formatted(String tenant, Long id) {
            return "ran";
        }

        /** A ternary that does not handle the null: it reaches the key whatever the branch. */
        @DistributedLock(
                key = "'tern:' + #tenant + ':' + (#tenant.isEmpty() ? 'x' : T(java.util.Objects).toString(#id))")
        public String ternary(String tenant, Long id) {
            return "ran";
        }
    }
}
