package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.fence.FencedOffException;
import dev.distlock.core.fence.JdbcFence;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockTransactionAutoConfiguration;
import dev.distlock.testsupport.IntegrationTest;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.config.EnableJpaRepositories;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/**
 * The fence and the commit check under JPA: a Spring Data JPA repository's save in a {@code @DistributedLock}
 * + {@code @Transactional} method, on Hibernate and {@code JpaTransactionManager}. LockContext.fence().check
 * runs on the JPA transaction's own JDBC connection, so a paused holder's refused check rolls back its JPA
 * changes with the rest of the transaction; a lock lost before the commit rolls the JPA transaction back.
 * Each database's test says how to reach it.
 */
@IntegrationTest
abstract class JpaFenceContract {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final AtomicInteger skus = new AtomicInteger();
    static LockClient instanceB;

    /** A data source for one application context, with the fence table created in its database. */
    abstract DataSource dataSource();

    @BeforeAll
    static void connectOtherInstance() {
        instanceB = LockClient.create(RedisURI.create(redis.server().uri()));
    }

    @AfterAll
    static void closeOtherInstance() {
        instanceB.close();
    }

    private ApplicationContextRunner runner() {
        DataSource dataSource = dataSource();
        return BootLine.starterOn(redis.server())
                .withConfiguration(AutoConfigurations.of(DistributedLockTransactionAutoConfiguration.class))
                .withBean(DataSource.class, () -> dataSource)
                .withUserConfiguration(JpaConfig.class);
    }

    @Test
    void thePausedHoldersRepositorySaveIsRolledBackAndTheNewHoldersKept() {
        runner().run(context -> {
            Warehouse warehouse = context.getBean(Warehouse.class);
            DataSource dataSource = context.getBean(DataSource.class);
            String sku = "jpa-" + skus.incrementAndGet();
            warehouse.set(sku, 1, () -> {});
            assertThatThrownBy(() -> warehouse.set(sku, 99, () -> {
                        // while A pauses, its lock is taken over and B writes under a newer token, and commits
                        RedisLock lockB = LockFenceTest.takeOver(instanceB, "stock:" + sku);
                        try (Connection c = dataSource.getConnection()) {
                            new JdbcFence().check(c, "stock:" + sku, lockB.currentFencingToken());
                            try (PreparedStatement update =
                                    c.prepareStatement("UPDATE jpa_stock SET qty = 7 WHERE sku = ?")) {
                                update.setString(1, sku);
                                update.executeUpdate();
                            }
                        } catch (SQLException e) {
                            throw new IllegalStateException(e);
                        } finally {
                            lockB.unlock();
                        }
                    }))
                    .isInstanceOf(FencedOffException.class)
                    .hasMessageContaining("stock:" + sku);
            assertThat(quantity(dataSource, sku)).isEqualTo(7);

            long token = warehouse.set(sku, 5, () -> {}); // the next holder's token is newer still
            assertThat(quantity(dataSource, sku)).isEqualTo(5);
            assertThat(new JdbcTemplate(dataSource)
                            .queryForObject(
                                    "SELECT token FROM distlock_fence WHERE resource = ?", Long.class, "stock:" + sku))
                    .isEqualTo(token);
        });
    }

    @Test
    void aJpaTransactionWhoseLockIsLostBeforeCommitRollsBack() {
        runner().run(context -> {
            Warehouse warehouse = context.getBean(Warehouse.class);
            String sku = "jpa-" + skus.incrementAndGet();
            assertThatThrownBy(() -> warehouse.receive(
                            sku, 3, key -> instanceB.getLock(key).forceUnlock()))
                    .isInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("stock:" + sku)
                    .hasMessageContaining("rolled back");
            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(rows(dataSource, sku)).isZero();
            // the fence was raised on the JPA transaction's connection, so it was rolled back with the save
            assertThat(new JdbcTemplate(dataSource)
                            .queryForObject(
                                    "SELECT COUNT(*) FROM distlock_fence WHERE resource = ?",
                                    Integer.class,
                                    "stock:" + sku))
                    .isZero();
        });
    }

    @Test
    void aJpaTransactionWhoseLockIsStillHeldCommits() {
        runner().run(context -> {
            Warehouse warehouse = context.getBean(Warehouse.class);
            String sku = "jpa-" + skus.incrementAndGet();
            warehouse.receive(sku, 4, key -> {});
            assertThat(quantity(context.getBean(DataSource.class), sku)).isEqualTo(4);
        });
    }

    private static int quantity(DataSource dataSource, String sku) {
        return new JdbcTemplate(dataSource)
                .queryForObject("SELECT qty FROM jpa_stock WHERE sku = ?", Integer.class, sku);
    }

    private static int rows(DataSource dataSource, String sku) {
        return new JdbcTemplate(dataSource)
                .queryForObject("SELECT COUNT(*) FROM jpa_stock WHERE sku = ?", Integer.class, sku);
    }

    static void createFenceTable(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            new JdbcFence().createTable(c);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Entity
    @Table(name = "jpa_stock")
    public static class StockItem {
        @Id
        private String sku;

        private int qty;

        protected StockItem() {}

        StockItem(String sku, int qty) {
            this.sku = sku;
            this.qty = qty;
        }
    }

    public interface StockItems extends JpaRepository<StockItem, String> {}

    public static class Warehouse {
        private final StockItems items;

        public Warehouse(StockItems items) {
            this.items = items;
        }

        /** Writes through the repository (flushed, so the database has the change), then checks the fence. */
        @Transactional
        @DistributedLock(key = "'stock:' + #sku")
        public long set(String sku, int qty, Runnable pause) {
            pause.run();
            items.saveAndFlush(new StockItem(sku, qty));
            LockContext.fence().check("stock:" + sku);
            return LockContext.currentToken();
        }

        /** Saves (Hibernate flushes at the commit, after the commit check) and raises the fence. */
        @Transactional
        @DistributedLock(key = "'stock:' + #sku")
        public void receive(String sku, int qty, Consumer<String> beforeReturn) {
            items.save(new StockItem(sku, qty));
            LockContext.fence().check("stock:" + sku);
            beforeReturn.accept("stock:" + sku);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    @EnableJpaRepositories(
            basePackageClasses = JpaFenceContract.class,
            considerNestedRepositories = true,
            includeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = StockItems.class))
    static class JpaConfig {
        @Bean
        LocalContainerEntityManagerFactoryBean entityManagerFactory(DataSource dataSource) {
            LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
            factory.setDataSource(dataSource);
            factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
            factory.setManagedTypes(PersistenceManagedTypes.of(StockItem.class.getName()));
            factory.setJpaPropertyMap(Map.of("hibernate.hbm2ddl.auto", "update"));
            return factory;
        }

        @Bean
        PlatformTransactionManager transactionManager(EntityManagerFactory entityManagerFactory) {
            return new JpaTransactionManager(entityManagerFactory);
        }

        @Bean
        Warehouse warehouse(StockItems items) {
            return new Warehouse(items);
        }
    }
}
