package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockType;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.RedisExtension;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.SubmissionPublisher;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.reactivestreams.Publisher;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.context.request.async.WebAsyncTask;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;
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
                Arguments.of(ZeroLease.class, "ZeroLease.run()", "leaseTime PT0S, under the 10 ms minimum", "watchdog"),
                Arguments.of(
                        ShortLease.class,
                        "ShortLease.run()",
                        "leaseTime PT0.005S, under the 10 ms minimum",
                        "well above the round trip"),
                Arguments.of(
                        HugeWait.class, "HugeWait.run()", "waitTime \"400d\", over the 365 days", "at most 365 days"),
                Arguments.of(
                        HugeHoldAtLeast.class,
                        "HugeHoldAtLeast.run()",
                        "holdAtLeast \"400d\", over the 365 days",
                        "at most 365 days"),
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
                        PermitsWithKeys.class,
                        "PermitsWithKeys.run()",
                        "combines permits with keys",
                        "permits with a single key"),
                Arguments.of(PermitsWithRead.class, "PermitsWithRead.run()", "permits with type = READ", "type = FAIR"),
                Arguments.of(
                        SemaphoreWithoutPermits.class,
                        "SemaphoreWithoutPermits.run()",
                        "without permits",
                        "permits = n"),
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
                        MaxHoldWithLease.class,
                        "MaxHoldWithLease.run()",
                        "sets maxHold PT10M with the fixed leaseTime PT5S",
                        "remove leaseTime to use the watchdog capped at maxHold"),
                Arguments.of(
                        TinyMaxHold.class, "TinyMaxHold.run()", "maxHold PT0.001S, under the 10 ms minimum", "10m"),
                Arguments.of(
                        BadMaxHold.class, "BadMaxHold.run()", "maxHold \"forever\", which is not a duration", "500ms"),
                Arguments.of(
                        PublisherResult.class,
                        "PublisherResult.run()",
                        "returns org.reactivestreams.Publisher",
                        "Return a Reactor Mono or Flux"),
                Arguments.of(
                        IdentityKey.class,
                        "IdentityKey.pay(Order)",
                        "#order is a " + Order.class.getName() + ", which has no toString() of its own",
                        "Use a field such as #order.id, or give Order a toString()"),
                Arguments.of(
                        IdentityPart.class,
                        "IdentityPart.pay(Order)",
                        "#p0 is a " + Order.class.getName() + ", which has no toString() of its own",
                        "Use a field such as #p0.id"),
                Arguments.of(
                        ArrayKey.class,
                        "ArrayKey.run(long[])",
                        "#ids is an array (long[]): its text is its identity",
                        "T(java.util.Arrays).toString(#ids)"),
                deferred(MvcCallable.class, Callable.class, "whoever receives it (Spring MVC, an executor) calls it"),
                deferred(MvcDeferredResult.class, DeferredResult.class, "other code sets its result"),
                deferred(MvcWebAsyncTask.class, WebAsyncTask.class, "Spring MVC runs it after the method returns"),
                deferred(
                        MvcStreamingBody.class,
                        StreamingResponseBody.class,
                        "Spring MVC writes the response body with it"),
                deferred(MvcSse.class, SseEmitter.class, "it sends its data after the method returns"),
                deferred(LazyStream.class, Stream.class, "a Stream is lazy"),
                deferred(JdkPublisher.class, Flow.Publisher.class, "it does its work when subscribed to"));
    }

    /** A method returning a result whose work runs after it returned: start-up names the type, why, and the fixes. */
    private static Arguments deferred(Class<?> bean, Class<?> returned, String why) {
        return Arguments.of(
                bean,
                bean.getSimpleName() + ".run()",
                "returns " + returned.getName() + ", which @DistributedLock does not support: " + why,
                "take the lock inside the deferred work");
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

    public static class PermitsWithKeys {
        @DistributedLock(
                keys = {"a", "b"},
                permits = 2)
        public void run() {}
    }

    public static class PermitsWithRead {
        @DistributedLock(key = "k", type = LockType.READ, permits = 2)
        public void run() {}
    }

    public static class SemaphoreWithoutPermits {
        @DistributedLock(key = "k", type = LockType.SEMAPHORE)
        public void run() {}
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

    public static class MaxHoldWithLease {
        @DistributedLock(key = "k", leaseTime = "5s", maxHold = "10m")
        public void run() {}
    }

    public static class TinyMaxHold {
        @DistributedLock(key = "k", maxHold = "1ms")
        public void run() {}
    }

    public static class BadMaxHold {
        @DistributedLock(key = "k", maxHold = "forever")
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

    public static class ShortLease {
        @DistributedLock(key = "k", leaseTime = "5ms")
        public void run() {}
    }

    public static class HugeWait {
        @DistributedLock(key = "k", waitTime = "400d")
        public void run() {}
    }

    public static class HugeHoldAtLeast {
        @DistributedLock(key = "k", holdAtLeast = "400d")
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
                type = dev.distlock.core.LockType.FAIR)
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

    /** Keeps Object's toString(): its text is its identity. */
    public static class Order {
        public long id;
    }

    public static class IdentityKey {
        @DistributedLock(key = "#order")
        public void pay(Order order) {}
    }

    public static class IdentityPart {
        @DistributedLock(key = "'order:' + #p0")
        public void pay(Order order) {}
    }

    public static class ArrayKey {
        @DistributedLock(key = "#ids")
        public void run(long[] ids) {}
    }

    public static class MvcCallable {
        @DistributedLock(key = "k")
        public Callable<String> run() {
            return () -> "x";
        }
    }

    public static class MvcDeferredResult {
        @DistributedLock(key = "k")
        public DeferredResult<String> run() {
            return new DeferredResult<>();
        }
    }

    public static class MvcWebAsyncTask {
        @DistributedLock(key = "k")
        public WebAsyncTask<String> run() {
            return new WebAsyncTask<>(() -> "x");
        }
    }

    public static class MvcStreamingBody {
        @DistributedLock(key = "k")
        public StreamingResponseBody run() {
            return out -> out.write('x');
        }
    }

    public static class MvcSse {
        @DistributedLock(key = "k")
        public SseEmitter run() {
            return new SseEmitter();
        }
    }

    public static class LazyStream {
        @DistributedLock(key = "k")
        public Stream<String> run() {
            return Stream.of("x").map(String::toUpperCase);
        }
    }

    public static class JdkPublisher {
        @DistributedLock(key = "k")
        public Flow.Publisher<String> run() {
            return new SubmissionPublisher<>();
        }
    }

    public static class PublisherResult {
        @DistributedLock(key = "k")
        public Publisher<String> run() {
            return Flux.just("x");
        }
    }
}
