package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockType;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.RedisBinary;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.TestCertificates;
import dev.distlock.testsupport.Waits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * Every bad input a user can give, and the error they see: what went wrong, which method, lock or
 * property, and what to do. The section "Bad input and the error you see" of docs/troubleshooting.md is this table,
 * checked row by row by {@link #troubleshootingDocShowsThisTable()}.
 */
class BadInputTableTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static int tlsPort;

    private static final String STARTUP = "start-up";
    private static final String CALL = "each call";
    private static final String UNLOCK = "unlock (method return)";
    private static final String CONFIG_ERROR = "DistributedLockConfigurationException";

    /**
     * One bad input.
     *
     * @param input what the user got wrong
     * @param where when it fails
     * @param error the exception type the user sees (start-up: the one in the failure analysis)
     * @param names the method, lock or property the message names
     * @param problem what the message says is wrong
     * @param advice what the message says to do
     * @param scenario runs the input and returns the text the user reads (analysis description + action, or exception message)
     */
    record Case(
            String input, String where, String error, String names, String problem, String advice, Scenario scenario) {
        @Override
        public String toString() {
            return input;
        }

        String markdown() {
            return "| " + input + " | `" + error + "`: \"" + problem + "\", names `" + names + "`, advises \"" + advice
                    + "\" | " + where + " |";
        }
    }

    /** Runs a bad input; returns the exception the user sees and the text they read. */
    interface Scenario {
        Seen run() throws Exception;
    }

    record Seen(String type, String text) {}

    static List<Case> cases() {
        return List.of(
                new Case(
                        "SpEL key that does not parse",
                        STARTUP,
                        CONFIG_ERROR,
                        "BadSpel.run(Long)",
                        "not a valid SpEL expression",
                        "'order:' + #orderId",
                        startup(BadSpel.class)),
                new Case(
                        "SpEL key that evaluates to null",
                        CALL,
                        "IllegalArgumentException",
                        "Keyed.byId(String)",
                        "evaluated to null",
                        "make the expression fall back to a value",
                        call(k -> k.byId(null))),
                new Case(
                        "SpEL key built from a null argument",
                        CALL,
                        "IllegalArgumentException",
                        "Keyed.order(Long)",
                        "uses #id, which is null in this call",
                        "pass a value",
                        call(k -> k.order(null))),
                new Case(
                        "SpEL key concatenating a null property of an argument ('order:' + #req.orderId)",
                        CALL,
                        "IllegalArgumentException",
                        "Keyed.request(Request)",
                        "uses #req.orderId, which is null in this call",
                        "pass a value",
                        call(k -> k.request(new Request()))),
                new Case(
                        "SpEL key that is, or concatenates, a parameter of a class without its own toString() (or a bare array)",
                        STARTUP,
                        CONFIG_ERROR,
                        "IdentityKey.pay(Order)",
                        "which has no toString() of its own",
                        "Use a field such as #order.id",
                        startup(IdentityKey.class)),
                new Case(
                        "SpEL key whose value has no toString() of its own, or is an array (parameter declared as Object or an interface)",
                        CALL,
                        "IllegalArgumentException",
                        "Keyed.byItem(Object)",
                        "which has no toString() of its own",
                        "Use a field such as #item.id",
                        call(k -> k.byItem(new Order()))),
                new Case(
                        "SpEL key naming a variable that is not a parameter (typo)",
                        STARTUP,
                        CONFIG_ERROR,
                        "Typo.pay(Long)",
                        "which is not a parameter of the method",
                        "#p0/#a0 by position",
                        startup(Typo.class)),
                new Case(
                        "@DistributedLock on a private, final or static method",
                        STARTUP,
                        CONFIG_ERROR,
                        "Hidden.run()",
                        "is private",
                        "Make @DistributedLock methods public",
                        startup(Hidden.class)),
                new Case(
                        "key longer than the limit (default 1024 characters)",
                        CALL,
                        "IllegalArgumentException",
                        "Keyed.byId(String)",
                        "is 1025 characters long, over the limit of 1024",
                        "raise distlock.max-key-length",
                        call(k -> k.byId("x".repeat(1025)))),
                new Case(
                        "key with a control character (\\n, \\r, \\0, ...)",
                        CALL,
                        "IllegalArgumentException",
                        "Keyed.byId(String)",
                        "contains the control character U+000A",
                        "strip or encode such input",
                        call(k -> k.byId("order\n42"))),
                new Case(
                        "unparsable duration in the annotation",
                        STARTUP,
                        CONFIG_ERROR,
                        "BadWait.run()",
                        "which is not a duration",
                        "500ms, 2s, 1m, PT2S",
                        startup(BadWait.class)),
                new Case(
                        "negative duration in the annotation",
                        STARTUP,
                        CONFIG_ERROR,
                        "NegativeWait.run()",
                        "negative waitTime",
                        "0 or more",
                        startup(NegativeWait.class)),
                new Case(
                        "lease under 10 ms in the annotation",
                        STARTUP,
                        CONFIG_ERROR,
                        "ShortLease.run()",
                        "under the 10 ms minimum",
                        "well above the round trip to Redis",
                        startup(ShortLease.class)),
                new Case(
                        "duration over 365 days in the annotation",
                        STARTUP,
                        CONFIG_ERROR,
                        "HugeHold.run()",
                        "over the 365 days a lock accepts",
                        "Use at most 365 days",
                        startup(HugeHold.class)),
                new Case(
                        "negative duration property",
                        STARTUP,
                        CONFIG_ERROR,
                        "distlock.wait-time",
                        "Invalid",
                        "non-negative duration such as 2s",
                        startup(Fine.class, "distlock.wait-time=-1s")),
                new Case(
                        "zero lease property",
                        STARTUP,
                        CONFIG_ERROR,
                        "distlock.lease-time",
                        "Invalid",
                        "positive duration such as 2s",
                        startup(Fine.class, "distlock.lease-time=0s")),
                new Case(
                        "lease property under 10 ms",
                        STARTUP,
                        CONFIG_ERROR,
                        "distlock.lease-time",
                        "outside the 10 ms to 365 days a lock accepts",
                        "well above the round trip to Redis",
                        startup(Fine.class, "distlock.lease-time=5ms")),
                new Case(
                        "unparsable duration property",
                        STARTUP,
                        "BindException",
                        "distlock.wait-time",
                        "failed to convert",
                        "Update your application's configuration",
                        startup(Fine.class, "distlock.wait-time=soon")),
                new Case(
                        "max-key-length below 1",
                        STARTUP,
                        CONFIG_ERROR,
                        "distlock.max-key-length",
                        "must be at least 1",
                        "Fix distlock.max-key-length",
                        startup(Fine.class, "distlock.max-key-length=0")),
                new Case(
                        "unknown distlock.pub-sub value",
                        STARTUP,
                        "BindException",
                        "distlock.pub-sub",
                        "failed to convert",
                        "The following values are valid",
                        startup(Fine.class, "distlock.pub-sub=fast")),
                new Case(
                        "onFailure = SKIP on a method returning a primitive",
                        STARTUP,
                        CONFIG_ERROR,
                        "SkipPrimitive.count()",
                        "returns the primitive int",
                        "Return a wrapper type or Optional",
                        startup(SkipPrimitive.class)),
                new Case(
                        "method returning work that runs after it returns (Spring MVC Callable, DeferredResult, SseEmitter, a Stream, ...)",
                        STARTUP,
                        CONFIG_ERROR,
                        "Deferred.run()",
                        "released when the method returns, before that work is done",
                        "take the lock inside the deferred work",
                        startup(Deferred.class)),
                new Case(
                        "method declared to return Object (or T) returning such work, or a CompletableFuture, Mono, ...",
                        CALL,
                        "IllegalStateException",
                        "Keyed.later()",
                        "is declared to return java.lang.Object but returned a java.util.concurrent.CompletableFuture",
                        "Declare the real return type",
                        call(Keyed::later)),
                new Case(
                        "keys with type = FAIR (or READ/WRITE)",
                        STARTUP,
                        CONFIG_ERROR,
                        "KeysWithFair.run()",
                        "combines keys with type = FAIR",
                        "type = REENTRANT with keys",
                        startup(KeysWithFair.class)),
                new Case(
                        "redlock = true with keys",
                        STARTUP,
                        CONFIG_ERROR,
                        "RedlockWithKeys.run()",
                        "combines RedLock with keys",
                        "single key and the default type",
                        startup(
                                RedlockWithKeys.class,
                                "distlock.redlock.nodes="
                                        + "redis://127.0.0.1:1,redis://127.0.0.1:2,redis://127.0.0.1:3")),
                new Case(
                        "redlock = true without nodes",
                        STARTUP,
                        CONFIG_ERROR,
                        "distlock.redlock.nodes",
                        "is not set",
                        "at least 3 independent Redis masters",
                        startup(RedlockMethod.class)),
                new Case(
                        "RedLock with fewer than 3 nodes",
                        STARTUP,
                        CONFIG_ERROR,
                        "distlock.redlock.nodes",
                        "lists 2 node(s)",
                        "3 or more",
                        startup(Fine.class, "distlock.redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2")),
                new Case(
                        "RedLock node listed twice",
                        STARTUP,
                        CONFIG_ERROR,
                        "distlock.redlock.nodes",
                        "127.0.0.1:1 twice",
                        "List each Redis master once",
                        startup(
                                Fine.class,
                                "distlock.redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2,"
                                        + "redis://127.0.0.1:1")),
                new Case(
                        "distlock.pub-sub=sharded on a Redis older than 7.0",
                        STARTUP,
                        CONFIG_ERROR,
                        "distlock.pub-sub",
                        "the server runs Redis 6.",
                        "upgrade Redis to 7.0 or later",
                        BadInputTableTest::shardedOnOldRedis),
                new Case(
                        "Redis unreachable",
                        STARTUP,
                        CONFIG_ERROR,
                        "spring.data.redis.host/port",
                        "could not connect to Redis",
                        "and that Redis is running",
                        startup(Fine.class, "spring.data.redis.port=" + dev.distlock.testsupport.Ports.closed())),
                new Case(
                        "wrong password",
                        STARTUP,
                        CONFIG_ERROR,
                        "spring.data.redis.host/port",
                        "WRONGPASS",
                        "username/password",
                        BadInputTableTest::wrongPassword),
                new Case(
                        "spring.data.redis.ssl.enabled=true against a plain port",
                        STARTUP,
                        CONFIG_ERROR,
                        "spring.data.redis.host/port",
                        "could not connect to Redis",
                        "username/password and ssl",
                        startup(Fine.class, "spring.data.redis.ssl.enabled=true")),
                new Case(
                        "plain connection to a TLS-only port",
                        STARTUP,
                        CONFIG_ERROR,
                        "spring.data.redis.host/port",
                        "could not connect to Redis",
                        "username/password and ssl",
                        () -> failedStartup(tlsRunner(false))),
                new Case(
                        "server certificate from a CA the SSL bundle does not trust",
                        STARTUP,
                        CONFIG_ERROR,
                        "spring.data.redis.host/port",
                        "unable to find valid certification path",
                        "username/password and ssl",
                        () -> failedStartup(tlsRunner(true))),
                new Case(
                        "unlock by a thread that does not own the lock",
                        "unlock()",
                        "IllegalMonitorStateException",
                        "Lock 'shared'",
                        "is not held by the current thread",
                        "only the owner can unlock it",
                        BadInputTableTest::unlockByNonOwner),
                new Case(
                        "explicit lease ran out before the method returned",
                        UNLOCK,
                        "LockLeaseExpiredException",
                        "Lock 'report'",
                        "was lost while held",
                        "the explicit lease was shorter than the work",
                        call(Keyed.class, Keyed::outlivesLease)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void badInputGivesAMessageNamingWhatAndWhatToDo(Case c) throws Exception {
        Seen seen = c.scenario().run();
        assertThat(seen).as("an error for %s", c.input()).isNotNull();
        assertThat(seen.type()).isEqualTo(c.error());
        assertThat(seen.text()).contains(c.names()).contains(c.problem()).contains(c.advice());
    }

    /** The docs' table is this table; the expected text is also written to target/bad-input-table.md to paste from. */
    @Test
    void troubleshootingDocShowsThisTable() throws Exception {
        String table = "| input | error | where |\n| --- | --- | --- |\n"
                + cases().stream().map(Case::markdown).collect(Collectors.joining("\n")) + "\n";
        Files.writeString(Path.of("target", "bad-input-table.md"), table);
        String doc = Files.readString(Path.of("..", "docs", "troubleshooting.md"));
        assertThat(doc)
                .as("docs/troubleshooting.md section 'Bad input and the error you see' (expected text in "
                        + "target/bad-input-table.md)")
                .contains("## Bad input and the error you see")
                .contains(table);
    }

    private static ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + redis.server().port(),
                        "spring.data.redis.timeout=2s",
                        "spring.data.redis.connect-timeout=2s");
    }

    private static Scenario startup(Class<?> bean, String... properties) {
        return () -> failedStartup(runner().withBean(bean).withPropertyValues(properties));
    }

    private static Seen failedStartup(ApplicationContextRunner runner) {
        AtomicReference<Seen> seen = new AtomicReference<>();
        runner.run(context -> {
            assertThat(context).hasFailed();
            seen.set(startupError(context));
        });
        return seen.get();
    }

    private static Seen startupError(AssertableApplicationContext context) {
        Throwable failure = context.getStartupFailure();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getClass().getSimpleName().equals(CONFIG_ERROR)) {
                FailureAnalysis analysis = AutoConfigurationTest.analyze(failure);
                return new Seen(CONFIG_ERROR, analysis.getDescription() + "\n" + analysis.getAction());
            }
            if (t instanceof org.springframework.boot.context.properties.bind.BindException) {
                FailureAnalysis analysis = bootBindFailureAnalysis(failure);
                return new Seen("BindException", analysis.getDescription() + "\n" + analysis.getAction());
            }
        }
        throw new AssertionError("no user-facing error in " + failure, failure);
    }

    /** What Spring Boot's own (package-private) BindFailureAnalyzer prints for a property that does not convert. */
    private static FailureAnalysis bootBindFailureAnalysis(Throwable failure) {
        try {
            var constructor = Class.forName("org.springframework.boot.diagnostics.analyzer.BindFailureAnalyzer")
                    .getDeclaredConstructor();
            constructor.setAccessible(true);
            return ((FailureAnalyzer) constructor.newInstance()).analyze(failure);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("Spring Boot's BindFailureAnalyzer moved", e);
        }
    }

    private static Scenario call(Consumer<Keyed> method) {
        return call(Keyed.class, method);
    }

    private static <T> Scenario call(Class<T> bean, Consumer<T> method) {
        return () -> {
            AtomicReference<Seen> seen = new AtomicReference<>();
            runner().withBean(bean).run(context -> {
                assertThat(context).hasNotFailed();
                try {
                    method.accept(context.getBean(bean));
                } catch (RuntimeException e) {
                    seen.set(new Seen(e.getClass().getSimpleName(), e.getMessage()));
                }
            });
            return seen.get();
        };
    }

    /** Points the application at a TLS-only port: plain, or with a bundle trusting a different CA than the server's. */
    private static ApplicationContextRunner tlsRunner(boolean sslWithUnknownCa) throws Exception {
        assumeThat(RedisBinary.isBundled()).as(RedisBinary.NO_TLS).isFalse();
        ApplicationContextRunner runner = runner().withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
                .withBean(Fine.class)
                .withPropertyValues("spring.data.redis.port=" + tlsPort());
        return sslWithUnknownCa
                ? runner.withPropertyValues(
                        "spring.data.redis.ssl.enabled=true",
                        "spring.data.redis.ssl.bundle=unknown-ca",
                        "spring.ssl.bundle.pem.unknown-ca.truststore.certificate=file:"
                                + TestCertificates.unknownCaCertificate())
                : runner;
    }

    /** One TLS-only listener for the TLS rows, started on first use. */
    private static synchronized int tlsPort() {
        if (tlsPort == 0) {
            tlsPort = redis.startAnotherWithSecondPort(TestCertificates.shared()::redisTlsArgs)
                    .port();
        }
        return tlsPort;
    }

    private static Seen wrongPassword() {
        RedisServer secured = redis.startAnother("--requirepass", "s3cret");
        return failedStartup(runner().withBean(Fine.class)
                .withPropertyValues("spring.data.redis.port=" + secured.port(), "spring.data.redis.password=wrong"));
    }

    /** Redis 7 made to answer INFO as a Redis 6 by a relay in front of it. */
    private static Seen shardedOnOldRedis() {
        try (FaultRelay relay = FaultRelay.to(redis.server())) {
            relay.poseAsRedis6(redis.server());
            return failedStartup(runner().withBean(Fine.class)
                    .withPropertyValues("spring.data.redis.port=" + relay.port(), "distlock.pub-sub=sharded"));
        }
    }

    private static Seen unlockByNonOwner() {
        AtomicReference<Seen> seen = new AtomicReference<>();
        runner().run(context -> {
            LockClient client = context.getBean(LockClient.class);
            RedisLock lock = client.getLock("shared");
            lock.lock();
            try {
                CompletableFuture.runAsync(() -> client.getLock("shared").unlock())
                        .handle((ok, e) -> {
                            Throwable cause = e.getCause() != null ? e.getCause() : e;
                            seen.set(new Seen(cause.getClass().getSimpleName(), cause.getMessage()));
                            return null;
                        })
                        .join();
            } finally {
                lock.unlock();
            }
        });
        return seen.get();
    }

    public static class Fine {
        @DistributedLock(key = "fine")
        public void run() {}
    }

    public static class Keyed {
        @DistributedLock(key = "#id")
        public void byId(String id) {}

        @DistributedLock(key = "'order:' + #id")
        public void order(Long id) {}

        @DistributedLock(key = "'order:' + #req.orderId")
        public void request(Request req) {}

        @DistributedLock(key = "#item")
        public void byItem(Object item) {}

        @DistributedLock(key = "later")
        public Object later() {
            return CompletableFuture.completedFuture("done");
        }

        /**
         * Holds "report" on a 1 s lease and keeps working after it ran out; long enough that it never runs out
         * before the method starts (see ActuatorEndpointTest.Jobs).
         */
        @DistributedLock(key = "report", leaseTime = "1s")
        public void outlivesLease() {
            await().atMost(Waits.GRANTED)
                    .until(() ->
                            redis.server().command("EXISTS", "lock:{report}").equals(":0"));
        }
    }

    /** Keeps Object's toString(): its text is its identity. */
    public static class Order {
        public long id;
    }

    public static class Request {
        public Long orderId;
    }

    public static class IdentityKey {
        @DistributedLock(key = "#order")
        public void pay(Order order) {}
    }

    public static class Typo {
        @DistributedLock(key = "'order:' + #ordrId")
        public void pay(Long orderId) {}
    }

    public static class Hidden {
        @DistributedLock(key = "hidden")
        private void run() {}
    }

    public static class BadSpel {
        @DistributedLock(key = "'order:' + #orderId +")
        public void run(Long orderId) {}
    }

    public static class BadWait {
        @DistributedLock(key = "k", waitTime = "soon")
        public void run() {}
    }

    public static class NegativeWait {
        @DistributedLock(key = "k", waitTime = "-1s")
        public void run() {}
    }

    public static class ShortLease {
        @DistributedLock(key = "k", leaseTime = "2ms")
        public void run() {}
    }

    public static class HugeHold {
        @DistributedLock(key = "k", holdAtLeast = "400d")
        public void run() {}
    }

    public static class SkipPrimitive {
        @DistributedLock(key = "k", onFailure = OnLockFailure.SKIP)
        public int count() {
            return 1;
        }
    }

    public static class Deferred {
        @DistributedLock(key = "k")
        public DeferredResult<String> run() {
            return new DeferredResult<>();
        }
    }

    public static class KeysWithFair {
        @DistributedLock(
                keys = {"a", "b"},
                type = LockType.FAIR)
        public void run() {}
    }

    public static class RedlockWithKeys {
        @DistributedLock(
                keys = {"a", "b"},
                redlock = true)
        public void run() {}
    }

    public static class RedlockMethod {
        @DistributedLock(key = "k", redlock = true)
        public void run() {}
    }
}
