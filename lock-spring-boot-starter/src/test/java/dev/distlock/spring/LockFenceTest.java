package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.fence.FencedOffException;
import dev.distlock.core.fence.JdbcFence;
import dev.distlock.core.fence.RedisFence;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/**
 * LockContext.fence(): a holder whose lock was taken from it while it paused has its late write refused by
 * the database (H2, through the Spring transaction's connection) and by Redis, while the newer holder's stays.
 */
class LockFenceTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final AtomicInteger databases = new AtomicInteger();
    static LockClient instanceB;
    static RedisClient client;
    static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        instanceB = LockClient.create(RedisURI.create(redis.server().uri()));
        client = RedisClient.create(RedisURI.create(redis.server().uri()));
        connection = client.connect();
    }

    @AfterAll
    static void close() {
        instanceB.close();
        connection.close();
        ClientShutdown.shutdown(client);
    }

    private ApplicationContextRunner runner() {
        return BootLine.starterOn(redis.server())
                .withPropertyValues("test.db=fence-" + databases.incrementAndGet())
                .withUserConfiguration(TxConfig.class);
    }

    @Test
    void theNewHoldersRowIsKeptAndThePausedHoldersLateWriteRefused() {
        runner().run(context -> {
            Stock stock = context.getBean(Stock.class);
            DataSource dataSource = context.getBean(DataSource.class);
            assertThatThrownBy(() -> stock.set("sku-1", 99, () -> {
                        // while A pauses, its lock is taken over and B writes under a newer token
                        RedisLock lockB = takeOver("stock:sku-1");
                        try (Connection c = dataSource.getConnection()) {
                            new JdbcFence().check(c, "stock:sku-1", lockB.currentFencingToken());
                            // on B's own connection: this thread's JdbcTemplate would join A's transaction
                            c.createStatement().executeUpdate("INSERT INTO stock VALUES ('sku-1', 7)");
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        } finally {
                            lockB.unlock();
                        }
                    }))
                    .isInstanceOf(FencedOffException.class)
                    .hasMessageContaining("stock:sku-1");
            assertThat(stock.quantity("sku-1")).isEqualTo(7);
        });
    }

    @Test
    void aHolderThatKeptItsLockWritesAndRaisesTheFence() {
        runner().run(context -> {
            Stock stock = context.getBean(Stock.class);
            long token = stock.set("sku-2", 5, () -> {});
            assertThat(stock.quantity("sku-2")).isEqualTo(5);
            assertThat(new JdbcTemplate(context.getBean(DataSource.class))
                            .queryForObject(
                                    "SELECT token FROM distlock_fence WHERE resource = 'stock:sku-2'", Long.class))
                    .isEqualTo(token);
        });
    }

    @Test
    void aCheckOutsideATransactionSaysWhereToCallIt() {
        runner().run(context -> assertThatThrownBy(
                        () -> context.getBean(Stock.class).checkWithoutTransaction("sku-3"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("outside a transaction"));
    }

    @Test
    void redisRefusesThePausedHoldersValueAndKeepsTheNewOnes() {
        runner().run(context -> {
            Stock stock = context.getBean(Stock.class);
            assertThatThrownBy(() -> stock.cache("sku-4", "99", () -> {
                        RedisLock lockB = takeOver("stock:sku-4");
                        try {
                            new RedisFence(connection.sync()).set("cache:sku-4", "7", lockB.currentFencingToken());
                        } finally {
                            lockB.unlock();
                        }
                    }))
                    .isInstanceOf(FencedOffException.class)
                    .hasMessageContaining("cache:sku-4");
            assertThat(connection.sync().get("cache:sku-4")).isEqualTo("7");
            stock.cache("sku-4", "6", () -> {}); // the next holder's token is newer still
            assertThat(connection.sync().get("cache:sku-4")).isEqualTo("6");
        });
    }

    private static RedisLock takeOver(String key) {
        return takeOver(instanceB, key);
    }

    /** Another instance takes the lock from its holder (as when the holder's lease runs out during a pause). */
    static RedisLock takeOver(LockClient instanceB, String key) {
        instanceB.getLock(key).forceUnlock();
        RedisLock lock = instanceB.getLock(key);
        try {
            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        return lock;
    }

    public static class Stock {
        private final JdbcTemplate jdbc;

        public Stock(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        @DistributedLock(key = "'stock:' + #sku")
        public long set(String sku, int qty, Runnable pause) {
            pause.run();
            LockContext.fence().check("stock:" + sku);
            jdbc.update("DELETE FROM stock WHERE sku = ?", sku);
            jdbc.update("INSERT INTO stock VALUES (?, ?)", sku, qty);
            return LockContext.currentToken();
        }

        @DistributedLock(key = "'stock:' + #sku")
        public void checkWithoutTransaction(String sku) {
            LockContext.fence().check("stock:" + sku);
        }

        @DistributedLock(key = "'stock:' + #sku")
        public void cache(String sku, String value, Runnable pause) {
            pause.run();
            LockContext.fence().set("cache:" + sku, value);
        }

        int quantity(String sku) {
            return jdbc.queryForObject("SELECT qty FROM stock WHERE sku = ?", Integer.class, sku);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TxConfig {
        @Bean
        DataSource dataSource(org.springframework.core.env.Environment environment) throws Exception {
            DataSource dataSource = new DriverManagerDataSource(
                    "jdbc:h2:mem:" + environment.getProperty("test.db") + ";DB_CLOSE_DELAY=-1", "sa", "");
            try (Connection c = dataSource.getConnection()) {
                new JdbcFence().createTable(c);
            }
            new JdbcTemplate(dataSource).execute("CREATE TABLE stock (sku VARCHAR(20) PRIMARY KEY, qty INT NOT NULL)");
            return dataSource;
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        Stock stock(DataSource dataSource) {
            return new Stock(new JdbcTemplate(dataSource));
        }
    }
}
