package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.LockType;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.RedisExtension;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.reactivestreams.Publisher;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Flux;
import reactor.core.publisher.ParallelFlux;

/** Every bad annotation fails start-up with a message naming the method, the attribute and the fix. */
class StartupValidationTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    static Stream<Arguments> badAnnotations() {
        return Stream.of(
                Arguments.of(BadSpel.class, "BadSpel.run(Long)", "not a valid SpEL expression", "'order:' + #orderId"),
                Arguments.of(BadWait.class, "BadWait.run()", "waitTime \"soon\", which is not a duration", "500ms"),
                Arguments.of(NegativeWait.class, "NegativeWait.run()", "negative waitTime", "0 or more"),
                Arguments.of(ZeroLease.class, "ZeroLease.run()", "leaseTime 0", "watchdog"),
                Arguments.of(MissingProperty.class, "MissingProperty.run()", "${lock.wait}", "${property}"),
                Arguments.of(
                        SkipPrimitive.class, "SkipPrimitive.count()", "returns the primitive int", "onFailure = THROW"),
                Arguments.of(KeyAndKeys.class, "KeyAndKeys.run()", "sets both key and keys", "keys for several"),
                Arguments.of(
                        EmptyKeysEntry.class, "EmptyKeysEntry.run()", "empty entry in keys", "Give every key a value"),
                Arguments.of(
                        KeysWithFair.class,
                        "KeysWithFair.run()",
                        "combines keys with type = FAIR",
                        "type = REENTRANT with keys"),
                Arguments.of(
                        PlainFuture.class,
                        "PlainFuture.run()",
                        "returns Future, a Future that is not a CompletionStage",
                        "Return CompletableFuture or CompletionStage"),
                Arguments.of(
                        OwnStage.class,
                        "OwnStage.run()",
                        "a CompletionStage the lock cannot hand back",
                        "Declare the return type as CompletionStage or CompletableFuture"),
                Arguments.of(
                        ParallelResult.class,
                        "ParallelResult.run()",
                        "returns reactor.core.publisher.ParallelFlux, which" + " @DistributedLock does not support",
                        "Return a Reactor Mono or Flux"),
                Arguments.of(
                        HoldAtLeastWithFair.class,
                        "HoldAtLeastWithFair.run()",
                        "sets holdAtLeast with type = FAIR",
                        "Use holdAtLeast with the default type"),
                Arguments.of(
                        HoldAtLeastOverLease.class,
                        "HoldAtLeastOverLease.run()",
                        "has holdAtLeast PT10S longer than its leaseTime PT5S",
                        "lockAtLeastFor <= lockAtMostFor"),
                Arguments.of(
                        PublisherResult.class,
                        "PublisherResult.run()",
                        "returns org.reactivestreams.Publisher",
                        "Return a Reactor Mono or Flux"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badAnnotations")
    void badAnnotationFailsStartup(Class<?> bean, String method, String problem, String advice) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.server().port())
                .withBean(bean)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = AutoConfigurationTest.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains(method).contains(problem);
                    assertThat(analysis.getAction()).contains(advice);
                });
    }

    public static class BadSpel {
        @DistributedLock(key = "'order:' + #orderId +")
        public void run(Long orderId) {}
    }

    public static class HoldAtLeastWithFair {
        @DistributedLock(key = "k", type = LockType.FAIR, holdAtLeast = "1s")
        public void run() {}
    }

    public static class HoldAtLeastOverLease {
        @DistributedLock(key = "k", leaseTime = "5s", holdAtLeast = "10s")
        public void run() {}
    }

    public static class BadWait {
        @DistributedLock(key = "k", waitTime = "soon")
        public void run() {}
    }

    public static class NegativeWait {
        @DistributedLock(key = "k", waitTime = "-1s")
        public void run() {}
    }

    public static class ZeroLease {
        @DistributedLock(key = "k", leaseTime = "0s")
        public void run() {}
    }

    public static class MissingProperty {
        @DistributedLock(key = "k", waitTime = "${lock.wait}")
        public void run() {}
    }

    public static class SkipPrimitive {
        @DistributedLock(key = "k", onFailure = OnLockFailure.SKIP)
        public int count() {
            return 1;
        }
    }

    public static class KeyAndKeys {
        @DistributedLock(
                key = "a",
                keys = {"b", "c"})
        public void run() {}
    }

    public static class EmptyKeysEntry {
        @DistributedLock(keys = {"a", " "})
        public void run() {}
    }

    public static class KeysWithFair {
        @DistributedLock(
                keys = {"a", "b"},
                type = dev.distlock.spring.annotation.LockType.FAIR)
        public void run() {}
    }

    public static class PlainFuture {
        @DistributedLock(key = "k")
        public Future<String> run() {
            return new FutureTask<>(() -> "x");
        }
    }

    public static class OwnStage {
        @DistributedLock(key = "k")
        public Receipt run() {
            return new Receipt();
        }
    }

    /** A CompletableFuture subclass: the interceptor hands back a plain CompletableFuture, which is not one. */
    public static class Receipt extends CompletableFuture<String> {}

    public static class ParallelResult {
        @DistributedLock(key = "k")
        public ParallelFlux<String> run() {
            return Flux.just("x").parallel();
        }
    }

    public static class PublisherResult {
        @DistributedLock(key = "k")
        public Publisher<String> run() {
            return Flux.just("x");
        }
    }
}
