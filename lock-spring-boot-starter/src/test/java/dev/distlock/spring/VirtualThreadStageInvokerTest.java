package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.VirtualThreads;
import dev.distlock.testsupport.Waits;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With {@code spring.threads.virtual.enabled=true}, a {@code @DistributedLock} method returning a
 * CompletionStage is invoked on a virtual thread of its own once its lock is held; without it, on the
 * starter's platform threads. (The caller's context reaches either kind alike: AsyncContextPropagationTest.)
 * Needs Java 21+: run by the virtual-threads profile of the parent POM on the JDK that
 * {@code DISTLOCK_JAVA21} names.
 */
@BehaviourTest
class VirtualThreadStageInvokerTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void withVirtualThreadsEnabledTheMethodRunsOnAVirtualThread() {
        assertThat(Runtime.version().feature())
                .as("this test needs a Java 21+ JVM (see the parent POM's virtual-threads profile)")
                .isGreaterThanOrEqualTo(21);
        BootLine.starterOn(redis.server())
                .withPropertyValues("spring.threads.virtual.enabled=true")
                .withBean(Invoked.class)
                .run(context -> {
                    Thread thread =
                            context.getBean(Invoked.class).where().get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
                    assertThat(VirtualThreads.isVirtual(thread))
                            .as("ran on a virtual thread")
                            .isTrue();
                    assertThat(thread.getName()).startsWith("distlock-invoke-");
                });
    }

    @Test
    void withoutItTheMethodRunsOnThePlatformThreadsOfTheStarter() {
        BootLine.starterOn(redis.server()).withBean(Invoked.class).run(context -> {
            Thread thread = context.getBean(Invoked.class).where().get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
            assertThat(VirtualThreads.isVirtual(thread))
                    .as("ran on a virtual thread")
                    .isFalse();
            assertThat(thread.getName()).startsWith("distlock-invoke-");
        });
    }

    public static class Invoked {
        @DistributedLock(key = "'where'")
        public CompletableFuture<Thread> where() {
            return CompletableFuture.completedFuture(Thread.currentThread());
        }
    }
}
