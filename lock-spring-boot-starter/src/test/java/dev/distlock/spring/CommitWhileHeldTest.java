package dev.distlock.spring;

import static dev.distlock.spring.CommitCheckFixture.lostBeforeCommit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLostBeforeCommit;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Commit only while held: a transaction begun inside a lock's work (the lock wraps @Transactional) whose lock
 * is lost before it commits rolls back, or commits and is reported, on a real transaction manager (H2).
 */
class CommitWhileHeldTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    static LockClient other;

    @BeforeAll
    static void connectOtherInstance() {
        other = LockClient.create(RedisURI.create(redis.server().uri()));
    }

    @AfterAll
    static void closeOtherInstance() {
        other.close();
    }

    private ApplicationContextRunner runner() {
        return CommitCheckFixture.runner(redis.server(), "commit-check", TxConfig.class);
    }

    @Test
    void forceUnlockedBeforeCommitRollsBackAndNamesTheLock() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> ledger.book("a", key -> other.getLock(key).forceUnlock()))
                    .isInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("ledger:a")
                    .hasMessageContaining("no longer in Redis")
                    .hasMessageContaining("rolled back");
            assertThat(ledger.rows("a")).isZero();
            assertThat(lostBeforeCommit(context.getBean(MeterRegistry.class), LockMetrics.ROLLED_BACK))
                    .isEqualTo(1);
        });
    }

    @Test
    void takenByAnotherOwnerBeforeCommitRollsBack() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            RedisLock taken = other.getLock("ledger:b");
            try {
                assertThatThrownBy(() -> ledger.book("b", key -> {
                            other.getLock(key).forceUnlock();
                            assertThat(taken.tryLock()).isTrue();
                        }))
                        .isInstanceOf(LockLostBeforeCommitException.class)
                        .hasMessageContaining("ledger:b")
                        .hasMessageContaining("held by another owner");
            } finally {
                taken.unlock();
            }
            assertThat(ledger.rows("b")).isZero();
        });
    }

    @Test
    void keyDeletedInRedisBeforeCommitRollsBack() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> ledger.book("c", key -> redis.server().command("DEL", "lock:{" + key + "}")))
                    .isInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("ledger:c");
            assertThat(ledger.rows("c")).isZero();
        });
    }

    @Test
    void leaseRunOutBeforeCommitRollsBackOnTheLeaseClockAlone() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> ledger.bookWithShortLease("d"))
                    .isInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("ledger:d")
                    .hasMessageContaining("lease clock");
            assertThat(ledger.rows("d")).isZero();
        });
    }

    @Test
    void anAsyncMethodsTransactionIsCheckedOnItsLocksHandle() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            CompletableFuture<Void> booked =
                    ledger.bookAsync("k", key -> other.getLock(key).forceUnlock());
            assertThatThrownBy(() -> booked.get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS))
                    .hasCauseInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("ledger:k");
            assertThat(ledger.rows("k")).isZero();
        });
    }

    @Test
    void aPermitStillHeldCommitsAndAForceReleasedOneRollsBack() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            ledger.bookUnderPermit("p1", key -> {});
            assertThat(ledger.rows("p1")).isOne();

            assertThatThrownBy(() -> ledger.bookUnderPermit(
                            "p2", key -> other.getSemaphore(key, 2).forceReleaseAll()))
                    .isInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("quota:p2");
            assertThat(ledger.rows("p2")).isZero();
        });
    }

    @Test
    void aHoldStillHeldCommits() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            ledger.book("e", key -> {});
            assertThat(ledger.rows("e")).isOne();
            assertThat(lostBeforeCommit(context.getBean(MeterRegistry.class), LockMetrics.ROLLED_BACK))
                    .isZero();
        });
    }

    @Test
    void commitAndReportOnTheAnnotationCommitsAndCounts() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            // committed; the release then finds the lock gone, as without the check (distlock.throw-on-lease-lost)
            assertThatThrownBy(() ->
                            ledger.bookAndReport("f", key -> other.getLock(key).forceUnlock()))
                    .isInstanceOf(LockLeaseExpiredException.class);
            assertThat(ledger.rows("f")).isOne();
            assertThat(lostBeforeCommit(context.getBean(MeterRegistry.class), LockMetrics.COMMITTED))
                    .isEqualTo(1);
        });
    }

    @Test
    void commitAndReportAsThePropertyCommitsAndCounts() {
        runner().withPropertyValues("distlock.transaction.on-lost-before-commit=commit-and-report")
                .run(context -> {
                    Ledger ledger = context.getBean(Ledger.class);
                    assertThatThrownBy(() ->
                                    ledger.book("g", key -> other.getLock(key).forceUnlock()))
                            .isInstanceOf(LockLeaseExpiredException.class);
                    assertThat(ledger.rows("g")).isOne();
                    assertThat(lostBeforeCommit(context.getBean(MeterRegistry.class), LockMetrics.COMMITTED))
                            .isEqualTo(1);
                });
    }

    @Test
    void switchedOffTheTransactionCommitsUnchecked() {
        runner().withPropertyValues("distlock.transaction.check-before-commit=false")
                .run(context -> {
                    Ledger ledger = context.getBean(Ledger.class);
                    assertThatThrownBy(() ->
                                    ledger.book("h", key -> other.getLock(key).forceUnlock()))
                            .isInstanceOf(LockLeaseExpiredException.class);
                    assertThat(ledger.rows("h")).isOne();
                });
    }

    @Test
    void aTransactionBegunInsideALockTemplateCallIsCheckedToo() {
        runner().run(context -> {
            LockTemplate locks = context.getBean(LockTemplate.class);
            TransactionTemplate tx = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> locks.execute(
                            "ledger:i",
                            Waits.GRANTED,
                            () -> tx.executeWithoutResult(status -> {
                                ledger.insert("i");
                                other.getLock("ledger:i").forceUnlock();
                            })))
                    .isInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("ledger:i");
            assertThat(ledger.rows("i")).isZero();
        });
    }

    @Test
    void aTransactionBegunInsideTheWorkButCommittedAfterTheReleaseRollsBackAndSaysWhy() {
        runner().run(context -> {
            LockTemplate locks = context.getBean(LockTemplate.class);
            PlatformTransactionManager transactions = context.getBean(PlatformTransactionManager.class);
            Ledger ledger = context.getBean(Ledger.class);
            TransactionStatus leftOpen = locks.execute("ledger:j", Waits.GRANTED, () -> {
                TransactionStatus status = transactions.getTransaction(TransactionDefinition.withDefaults());
                ledger.insert("j");
                return status;
            });
            assertThatThrownBy(() -> transactions.commit(leftOpen))
                    .isInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("ledger:j")
                    .hasMessageContaining("released it before the transaction committed");
            assertThat(ledger.rows("j")).isZero();
        });
    }

    public static class Ledger {
        private final JdbcTemplate jdbc;

        public Ledger(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        @DistributedLock(key = "'ledger:' + #account")
        public void book(String account, Consumer<String> beforeReturn) {
            insert(account);
            beforeReturn.accept("ledger:" + account);
        }

        @Transactional
        @DistributedLock(key = "'ledger:' + #account", onLostBeforeCommit = OnLostBeforeCommit.COMMIT_AND_REPORT)
        public void bookAndReport(String account, Consumer<String> beforeReturn) {
            insert(account);
            beforeReturn.accept("ledger:" + account);
        }

        @Transactional
        @DistributedLock(key = "'ledger:' + #account")
        public CompletableFuture<Void> bookAsync(String account, Consumer<String> beforeReturn) {
            insert(account);
            beforeReturn.accept("ledger:" + account);
            return CompletableFuture.completedFuture(null);
        }

        @Transactional
        @DistributedLock(key = "'quota:' + #account", permits = 2)
        public void bookUnderPermit(String account, Consumer<String> beforeReturn) {
            insert(account);
            beforeReturn.accept("quota:" + account);
        }

        /** Works past its fixed lease: the lock expires in Redis before the method returns. */
        @Transactional
        @DistributedLock(key = "'ledger:' + #account", leaseTime = "300ms")
        public void bookWithShortLease(String account) {
            insert(account);
            await().atMost(Waits.GRANTED)
                    .until(() -> !other.getLock("ledger:" + account).isLocked());
        }

        void insert(String account) {
            jdbc.update("INSERT INTO booking(account) VALUES (?)", account);
        }

        int rows(String account) {
            return jdbc.queryForObject("SELECT COUNT(*) FROM booking WHERE account = ?", Integer.class, account);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TxConfig {
        @Bean
        DataSource dataSource(org.springframework.core.env.Environment environment) {
            DataSource dataSource = new DriverManagerDataSource(
                    "jdbc:h2:mem:" + environment.getProperty("test.db") + ";DB_CLOSE_DELAY=-1", "sa", "");
            new JdbcTemplate(dataSource).execute("CREATE TABLE booking (account VARCHAR(20) NOT NULL)");
            return dataSource;
        }

        @Bean
        PlatformTransactionManager transactionManager(DataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        Ledger ledger(DataSource dataSource) {
            return new Ledger(new JdbcTemplate(dataSource));
        }
    }
}
