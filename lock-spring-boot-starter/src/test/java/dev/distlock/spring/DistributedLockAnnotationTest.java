package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@BehaviourTest
class DistributedLockAnnotationTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** A second, independent client: stands for another instance of the service. */
    static LockClient otherInstance;

    @BeforeAll
    static void connectOtherInstance() {
        otherInstance = LockClient.create(RedisURI.create(redis.server().uri()));
    }

    @AfterAll
    static void closeOtherInstance() {
        otherInstance.close();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "distlock.wait-time=" + HoldChecks.WAIT_RUNS_OUT);
    }

    /** Runs {@code whileHeld} while another instance holds {@code key}. */
    static <T> T whileHeldElsewhere(String key, Supplier<T> whileHeld) {
        RedisLock lock = otherInstance.getLock(key);
        CompletableFuture<Void> taken = new CompletableFuture<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread holder = new Thread(() -> {
            lock.lock();
            try {
                taken.complete(null);
                done.join();
            } finally {
                lock.unlock();
            }
        });
        holder.start();
        taken.join();
        try {
            return whileHeld.get();
        } finally {
            done.complete(null);
            try {
                holder.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void locksOnTheSpelKeyWhileTheMethodRuns() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.pay(42L)).isEqualTo("paid 42 holding true");
            assertThat(otherInstance.getLock("order:42").isLocked()).isFalse();
        });
    }

    @Test
    void resolvesParameterIndexRootAndBeanReferences() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.byIndex("x")).isTrue();
            assertThat(orders.byRoot()).isTrue();
            assertThat(orders.byBean(7)).isTrue();
            assertThat(orders.literal()).isTrue();
            assertThat(orders.methodNamed()).isTrue();
        });
    }

    @Test
    void throwsTypedExceptionWhenHeldElsewhere() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(() -> whileHeldElsewhere("order:7", () -> orders.pay(7L)))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("order:7")
                    .hasMessageContaining("Orders.pay(Long)")
                    .hasMessageContaining("2000 ms");
            assertThat(orders.calls()).doesNotContain("pay 7");
        });
    }

    @Test
    void skipReturnsNullOrEmptyOptionalWhenHeldElsewhere() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(whileHeldElsewhere("report", orders::report)).isNull();
            assertThat(whileHeldElsewhere("report", orders::maybeReport)).isEmpty();
            assertThat(orders.report()).isEqualTo("report");
            assertThat(orders.maybeReport()).contains("report");
        });
    }

    @Test
    void releasesWhenTheMethodThrows() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(() -> orders.fail(5))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("boom");
            assertThat(otherInstance.getLock("fail:5").isLocked()).isFalse();
        });
    }

    @Test
    void nullOrBlankKeyFailsTheCallNamingMethodAndExpression() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(() -> orders.pay(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("#orderId")
                    .hasMessageContaining("Orders.pay(Long)")
                    .hasMessageContaining("null");
            assertThatThrownBy(() -> orders.byIndex(" "))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("blank");
        });
    }

    @Test
    void keyConcatenatingANullPropertyFailsTheCallNamingIt() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(() -> orders.ship(new Shipment(null, "DE")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Orders.ship(Shipment)")
                    .hasMessageContaining("uses #req.orderId, which is null in this call")
                    .hasMessageContaining("the key would be \"ship:null:DE\"");
            assertThatThrownBy(() -> orders.ship(new Shipment(5L, null)))
                    .hasMessageContaining("uses #req.country, which is null in this call");
            assertThat(orders.ship(new Shipment(5L, "null")))
                    .as("the text null is a value")
                    .isEqualTo("shipped");
            assertThat(orders.calls()).containsExactly("ship 5");
        });
    }

    @Test
    void reentrantCallsOnTheSameKeyDoNotDeadlock() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            // inner runs through the proxy with waitTime 0: it gets the lock only by re-entering outer's hold
            assertThat(orders.outer(3)).isEqualTo("inner 3 at hold count 2");
            assertThat(otherInstance.getLock("re:3").isLocked()).isFalse();
        });
    }

    @Test
    void keysLockSeveralNamesTogetherAndExposeEachToken() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            java.util.Map<String, Long> tokens = orders.transfer(1, 2);
            assertThat(tokens).containsOnlyKeys("account:1", "account:2");
            assertThat(otherInstance.getLock("account:1").isLocked()).isFalse();
            // all or nothing: one of the two held elsewhere means the method does not run
            assertThatThrownBy(() -> whileHeldElsewhere("account:4", () -> orders.transfer(3, 4)))
                    .isInstanceOf(LockAcquisitionException.class)
                    .hasMessageContaining("account:3, account:4");
            assertThat(otherInstance.getLock("account:3").isLocked()).isFalse();
        });
    }

    @Test
    void typeFairTakesTheFairLockOfTheKey() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.fair(8))
                    .as("held as a fair lock while the method runs")
                    .isTrue();
            assertThat(otherInstance.getFairLock("fair:8").isLocked()).isFalse();
            assertThatThrownBy(() -> whileHeldElsewhere("fair:9", () -> orders.fair(9)))
                    .isInstanceOf(LockAcquisitionException.class);
        });
    }

    @Test
    void readersShareWritersExcludeAndUpgradeFailsAtOnce() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            var rw = otherInstance.getReadWriteLock("catalog:1");
            // another instance reading does not keep this one from reading ...
            assertThat(whileReadHeldElsewhere(rw, () -> orders.read(1))).isTrue();
            // ... but keeps it from writing
            assertThatThrownBy(() -> whileReadHeldElsewhere(rw, () -> orders.write(1)))
                    .isInstanceOf(LockAcquisitionException.class);
            assertThat(orders.write(1)).isTrue();
            assertThatThrownBy(() -> orders.readThenWrite(1)).isInstanceOf(IllegalStateException.class);
            assertThat(orders.writeThenRead(1))
                    .as("downgrade: a writer may read")
                    .isTrue();
        });
    }

    static <T> T whileReadHeldElsewhere(dev.distlock.core.RedisReadWriteLock rw, Supplier<T> whileHeld) {
        CompletableFuture<Void> taken = new CompletableFuture<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread holder = new Thread(() -> {
            rw.readLock().lock();
            try {
                taken.complete(null);
                done.join();
            } finally {
                rw.readLock().unlock();
            }
        });
        holder.start();
        taken.join();
        try {
            return whileHeld.get();
        } finally {
            done.complete(null);
            try {
                holder.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void lockContextGivesTheFencingTokenOfTheInnermostLock() {
        runner().withUserConfiguration(Services.class).run(context -> {
            Orders orders = context.getBean(Orders.class);
            long[] seen = orders.tokens(5);
            assertThat(seen[1]).as("inner lock's token").isPositive().isNotEqualTo(seen[0]);
            assertThat(seen[2])
                    .as("outer token restored after the inner method returned")
                    .isEqualTo(seen[0]);
            long next = orders.tokens(5)[0];
            assertThat(next)
                    .as("a later grant of the same lock gets a larger token")
                    .isGreaterThan(seen[0]);
            assertThatThrownBy(dev.distlock.spring.LockContext::currentToken)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("No @DistributedLock method is running");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Services {
        @Bean
        Orders orders(LockClient client) {
            return new Orders(client);
        }

        @Bean
        Tenant tenant() {
            return new Tenant();
        }
    }

    public static class Shipment {
        private final Long orderId;
        private final String country;

        Shipment(Long orderId, String country) {
            this.orderId = orderId;
            this.country = country;
        }

        public Long getOrderId() {
            return orderId;
        }

        public String getCountry() {
            return country;
        }
    }

    public static class Tenant {
        public String id() {
            return "acme";
        }
    }

    public static class Orders {
        final List<String> calls = new CopyOnWriteArrayList<>();
        private final LockClient client;

        @org.springframework.beans.factory.annotation.Autowired
        @org.springframework.context.annotation.Lazy
        Orders self;

        public List<String> calls() {
            return calls;
        }

        Orders(LockClient client) {
            this.client = client;
        }

        @DistributedLock(key = "'order:' + #orderId")
        public String pay(Long orderId) {
            calls.add("pay " + orderId);
            return "paid " + orderId + " holding "
                    + client.getLock("order:" + orderId).isHeldByCurrentThread();
        }

        @DistributedLock(key = "#p0")
        public boolean byIndex(String value) {
            return client.getLock(value).isHeldByCurrentThread();
        }

        @DistributedLock(key = "'m:' + #root.methodName")
        public boolean byRoot() {
            return client.getLock("m:byRoot").isHeldByCurrentThread();
        }

        @DistributedLock(key = "@tenant.id() + ':' + #n")
        public boolean byBean(int n) {
            return client.getLock("acme:" + n).isHeldByCurrentThread();
        }

        @DistributedLock(key = "nightly-job")
        public boolean literal() {
            return client.getLock("nightly-job").isHeldByCurrentThread();
        }

        @DistributedLock(name = "Orders.named")
        public boolean methodNamed() {
            return client.getLock("Orders.named").isHeldByCurrentThread();
        }

        @DistributedLock(key = "report", onFailure = OnLockFailure.SKIP)
        public String report() {
            return "report";
        }

        @DistributedLock(key = "report", onFailure = OnLockFailure.SKIP)
        public Optional<String> maybeReport() {
            return Optional.of("report");
        }

        @DistributedLock(key = "'fail:' + #n")
        public void fail(int n) {
            throw new IllegalStateException("boom");
        }

        @DistributedLock(
                keys = {"'account:' + #to", "'account:' + #from"},
                waitTime = HoldChecks.WAIT_RUNS_OUT)
        public java.util.Map<String, Long> transfer(long from, long to) {
            return dev.distlock.spring.LockContext.currentTokens();
        }

        @DistributedLock(
                key = "'fair:' + #n",
                type = dev.distlock.core.LockType.FAIR,
                waitTime = HoldChecks.WAIT_RUNS_OUT)
        public boolean fair(int n) {
            return client.getFairLock("fair:" + n).isHeldByCurrentThread();
        }

        @DistributedLock(
                key = "'catalog:' + #n",
                type = dev.distlock.core.LockType.READ,
                waitTime = HoldChecks.WAIT_RUNS_OUT)
        public boolean read(int n) {
            return client.getReadWriteLock("catalog:" + n).readLock().isHeldByCurrentThread();
        }

        @DistributedLock(
                key = "'catalog:' + #n",
                type = dev.distlock.core.LockType.WRITE,
                waitTime = HoldChecks.WAIT_RUNS_OUT)
        public boolean write(int n) {
            return client.getReadWriteLock("catalog:" + n).writeLock().isHeldByCurrentThread();
        }

        @DistributedLock(key = "'catalog:' + #n", type = dev.distlock.core.LockType.READ)
        public boolean readThenWrite(int n) {
            return self.write(n);
        }

        @DistributedLock(key = "'catalog:' + #n", type = dev.distlock.core.LockType.WRITE)
        public boolean writeThenRead(int n) {
            return self.read(n);
        }

        @DistributedLock(key = "'tok:' + #n")
        public long[] tokens(int n) {
            long outer = dev.distlock.spring.LockContext.currentToken();
            long inner = self.innerToken(n);
            return new long[] {outer, inner, dev.distlock.spring.LockContext.currentToken()};
        }

        @DistributedLock(key = "'tok-inner:' + #n")
        public long innerToken(int n) {
            return dev.distlock.spring.LockContext.currentToken();
        }

        @DistributedLock(key = "'ship:' + #req.orderId + ':' + #req.country")
        public String ship(Shipment req) {
            calls.add("ship " + req.getOrderId());
            return "shipped";
        }

        @DistributedLock(key = "'re:' + #n")
        public String outer(int n) {
            return self.inner(n);
        }

        @DistributedLock(key = "'re:' + #n", waitTime = "0")
        public String inner(int n) {
            return "inner " + n + " at hold count " + client.getLock("re:" + n).getHoldCount();
        }
    }
}
