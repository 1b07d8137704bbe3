package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockClient;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.FutureTask;
import java.util.concurrent.SubmissionPublisher;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.context.request.async.DeferredResult;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A method declared to return a plain value ({@code Object}, a type variable) passes start-up, but
 * may return deferred work at run time, which its lock, released on return, would not cover: the
 * call fails saying so, after the method ran under the lock, and the lock is released.
 */
@BehaviourTest
class UntypedResultTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return BootLine.starterOn(redis.server()).withBean(Untyped.class);
    }

    static Stream<Arguments> deferredWork() {
        return Stream.of(
                Arguments.of(CompletableFuture.class, (Supplier<?>) () -> CompletableFuture.completedFuture("x")),
                Arguments.of(FutureTask.class, (Supplier<?>) () -> new FutureTask<>(() -> "x")),
                Arguments.of(Mono.class, (Supplier<?>) () -> Mono.just("x")),
                Arguments.of(Flux.class, (Supplier<?>) () -> Flux.just("x")),
                Arguments.of(SubmissionPublisher.class, (Supplier<?>) SubmissionPublisher::new),
                Arguments.of(DeferredResult.class, (Supplier<?>) DeferredResult::new),
                Arguments.of(Stream.class, (Supplier<?>) () -> Stream.of("x").map(String::trim)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deferredWork")
    void objectMethodReturningDeferredWorkFailsTheCallAndReleases(Class<?> kind, Supplier<?> result) {
        runner().run(context -> {
            Untyped untyped = context.getBean(Untyped.class);
            assertThatThrownBy(() -> untyped.run(result))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Untyped.run(Supplier) is declared to return java.lang.Object but returned a")
                    .hasMessageContaining("the lock is released when the method returns")
                    .hasMessageContaining("its result is not handed back")
                    .hasMessageContaining("Declare the real return type");
            assertThat(untyped.ranLocked()).as("the method ran, under the lock").isTrue();
            assertThat(context.getBean(LockClient.class).getLock("untyped").isLocked())
                    .isFalse();
        });
    }

    @Test
    void genericMethodReturningDeferredWorkFailsTheCall() {
        runner().run(context -> {
            Untyped untyped = context.getBean(Untyped.class);
            assertThatThrownBy(() -> untyped.generic(() -> CompletableFuture.completedFuture("x")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(
                            "is declared to return T but returned a java.util.concurrent.CompletableFuture")
                    .hasMessageContaining("its work completes after the method returns");
        });
    }

    @Test
    void objectMethodReturningAValueOrNullReturnsIt() {
        runner().run(context -> {
            Untyped untyped = context.getBean(Untyped.class);
            assertThat(untyped.run(() -> List.of("x"))).isEqualTo(List.of("x"));
            assertThat(untyped.run(() -> null)).isNull();
        });
    }

    public static class Untyped {
        private final LockClient client;
        private volatile boolean ranLocked;

        public Untyped(LockClient client) {
            this.client = client;
        }

        /** Read through a method: the proxy has fields of its own. */
        public boolean ranLocked() {
            return ranLocked;
        }

        @DistributedLock(key = "untyped")
        public Object run(Supplier<?> result) {
            ranLocked = client.getLock("untyped").isHeldByCurrentThread();
            return result.get();
        }

        @DistributedLock(key = "generic")
        public <T> T generic(Supplier<T> result) {
            return result.get();
        }
    }
}
