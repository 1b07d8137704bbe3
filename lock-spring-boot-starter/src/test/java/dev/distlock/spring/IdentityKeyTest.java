package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.testsupport.RedisExtension;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A key whose value keeps Object's toString(), or is an array, would be the value's identity
 * ("Order@6d06d69c"): a lock of its own for every call. Parameters declared as such a class fail
 * start-up (StartupValidationTest); those declared as Object or an interface fail each call that
 * passes one, before any lock is asked for.
 */
class IdentityKeyTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return BootLine.starterOn(redis.server()).withBean(Keys.class);
    }

    @Test
    void keyThatIsAnObjectWithoutItsOwnToStringFailsTheCall() {
        runner().run(context -> {
            Keys keys = context.getBean(Keys.class);
            assertThatThrownBy(() -> keys.bare(new Order()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("@DistributedLock key \"#order\" on Keys.bare(Object)")
                    .hasMessageContaining(
                            "#order is a " + Order.class.getName() + ", which has no toString() of its own")
                    .hasMessageContaining("not exclude each other")
                    .hasMessageContaining("Use a field such as #order.id, or give Order a toString()");
            assertThat(keys.calls()).isZero();
        });
    }

    @Test
    void keyThatIsAnArrayFailsTheCall() {
        runner().run(context -> {
            Keys keys = context.getBean(Keys.class);
            assertThatThrownBy(() -> keys.bare(new long[] {1, 2}))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("#order is an array (long[]): its text is its identity")
                    .hasMessageContaining("T(java.util.Arrays).toString(#order)");
            assertThat(keys.calls()).isZero();
        });
    }

    @Test
    void keyConcatenatingAnObjectWithoutItsOwnToStringFailsTheCall() {
        runner().run(context -> {
            Keys keys = context.getBean(Keys.class);
            assertThatThrownBy(() -> keys.part(new Order()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("@DistributedLock key \"'order:' + #order\" on Keys.part(Object)")
                    .hasMessageContaining("#order is a " + Order.class.getName())
                    .hasMessageContaining("Use a field such as #order.id");
            assertThat(keys.calls()).isZero();
        });
    }

    @Test
    void valuesWithTextOfTheirOwnMakeKeys() {
        runner().run(context -> {
            Keys keys = context.getBean(Keys.class);
            assertThat(keys.bare("order-7")).containsExactly("order-7");
            assertThat(keys.part(7L)).containsExactly("order:7");
            assertThat(keys.part("ann@example.com"))
                    .as("an @ in the key is not taken for an identity")
                    .containsExactly("order:ann@example.com");
            assertThat(keys.joined(new long[] {1, 2}))
                    .as("concatenation joins an array's elements")
                    .containsExactly("ids:1,2");
            assertThat(keys.calls()).isEqualTo(4);
        });
    }

    /** Keeps Object's toString(). */
    public static class Order {
        public long id = 7;
    }

    public static class Keys {
        private final AtomicInteger calls = new AtomicInteger();

        public int calls() {
            return calls.get();
        }

        @DistributedLock(key = "#order")
        public Set<String> bare(Object order) {
            calls.incrementAndGet();
            return LockContext.currentTokens().keySet();
        }

        @DistributedLock(key = "'order:' + #order")
        public Set<String> part(Object order) {
            calls.incrementAndGet();
            return LockContext.currentTokens().keySet();
        }

        @DistributedLock(key = "'ids:' + #ids")
        public Set<String> joined(long[] ids) {
            calls.incrementAndGet();
            return LockContext.currentTokens().keySet();
        }
    }
}
