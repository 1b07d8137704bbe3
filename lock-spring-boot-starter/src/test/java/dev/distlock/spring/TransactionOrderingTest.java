package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** The lock must wrap @Transactional: another instance may only enter after our commit is visible. */
@BehaviourTest
class TransactionOrderingTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return BootLine.starterOn(redis.server()).withUserConfiguration(TxConfig.class);
    }

    @Test
    void commitHappensBeforeReleaseByDefault() {
        runner().run(context -> {
            context.getBean(Ledger.class).book("a");
            assertThat(context.getBean(Events.class).list)
                    .containsExactly("in method (transaction active)", "commit", "release");
        });
    }

    @Test
    void orderPropertyDecidesWhichWrapsWhich() {
        // Ordered after the transaction advisor, the lock sits inside the transaction: release comes first.
        runner().withPropertyValues("distlock.aop.order=" + Ordered.LOWEST_PRECEDENCE)
                .run(context -> {
                    context.getBean(Ledger.class).book("b");
                    assertThat(context.getBean(Events.class).list)
                            .containsExactly("in method (transaction active)", "release", "commit");
                });
    }

    static class Events {
        final List<String> list = new CopyOnWriteArrayList<>();
    }

    public static class Ledger {
        private final Events events;

        public Ledger(Events events) {
            this.events = events;
        }

        @Transactional
        @DistributedLock(key = "'ledger:' + #account")
        public void book(String account) {
            events.list.add("in method (transaction "
                    + (TransactionSynchronizationManager.isActualTransactionActive() ? "active)" : "missing)"));
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    events.list.add("commit");
                }
            });
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TxConfig {
        @Bean
        Events events() {
            return new Events();
        }

        @Bean
        LockListener releaseRecorder(Events events) {
            return new LockListener() {
                @Override
                public void onRelease(LockInfo lock, Duration held) {
                    events.list.add("release");
                }
            };
        }

        @Bean
        DataSource dataSource() {
            return new DriverManagerDataSource("jdbc:h2:mem:tx-ordering;DB_CLOSE_DELAY=-1", "sa", "");
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        Ledger ledger(Events events) {
            return new Ledger(events);
        }
    }
}
