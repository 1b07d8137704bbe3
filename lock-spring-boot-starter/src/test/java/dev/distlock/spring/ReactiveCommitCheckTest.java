package dev.distlock.spring;

import static dev.distlock.spring.CommitCheckFixture.lostBeforeCommit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLostBeforeCommit;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.spring.transaction.ReactiveCommitCheck;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.micrometer.core.instrument.MeterRegistry;
import io.r2dbc.h2.H2ConnectionFactory;
import io.r2dbc.spi.ConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.ReactiveTransactionManager;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Mono;

/**
 * Commit only while held, for reactive transactions: a {@code @DistributedLock} Mono whose publisher composes
 * {@link ReactiveLockContext#checkBeforeCommit()} inside a reactive transaction (R2DBC over H2 in memory) is
 * rolled back when its lock is lost before the commit, or commits and is reported, as imperative ones are.
 * The lock is lost by another instance force-unlocking it (or deleting it) inside the transaction, after the
 * row is written: a step of the method's own publisher, so no timing is involved.
 */
@BehaviourTest
@ExtendWith(OutputCaptureExtension.class)
class ReactiveCommitCheckTest {

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
        return CommitCheckFixture.runner(redis.server(), "reactive-commit-check", TxConfig.class);
    }

    /** Another instance force-unlocks the key: the lock is no longer this instance's in Redis. */
    private static Mono<Void> forceUnlocked(String key) {
        return Mono.fromRunnable(() -> other.getLock(key).forceUnlock());
    }

    @Test
    void lostBeforeCommitRollsBackNamesTheLockAndCounts() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> ledger.book("a", forceUnlocked("ledger:a")).block(Waits.GRANTED))
                    .isInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("ledger:a")
                    .hasMessageContaining("no longer in Redis")
                    .hasMessageContaining("rolled back");
            assertThat(ledger.rows("a")).isZero();
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            await().atMost(Waits.GRANTED)
                    .untilAsserted(() -> assertThat(lostBeforeCommit(meters, LockMetrics.ROLLED_BACK))
                            .isEqualTo(1));
        });
    }

    @Test
    void keyDeletedInRedisBeforeCommitRollsBack() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            Mono<Void> deleted = Mono.fromRunnable(() -> redis.server().command("DEL", "lock:{ledger:b}"));
            assertThatThrownBy(() -> ledger.book("b", deleted).block(Waits.GRANTED))
                    .isInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("ledger:b");
            assertThat(ledger.rows("b")).isZero();
        });
    }

    @Test
    void aLockStillHeldCommits() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            ledger.book("c", Mono.empty()).block(Waits.GRANTED);
            assertThat(ledger.rows("c")).isOne();
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
                            ledger.bookAndReport("d", forceUnlocked("ledger:d")).block(Waits.GRANTED))
                    .isInstanceOf(LockLeaseExpiredException.class);
            assertThat(ledger.rows("d")).isOne();
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            await().atMost(Waits.GRANTED)
                    .untilAsserted(() -> assertThat(lostBeforeCommit(meters, LockMetrics.COMMITTED))
                            .isEqualTo(1));
            assertThat(lostBeforeCommit(meters, LockMetrics.ROLLED_BACK)).isZero();
        });
    }

    @Test
    void commitAndReportAsThePropertyCommits() {
        runner().withPropertyValues("distlock.transaction.on-lost-before-commit=commit-and-report")
                .run(context -> {
                    Ledger ledger = context.getBean(Ledger.class);
                    assertThatThrownBy(() ->
                                    ledger.book("e", forceUnlocked("ledger:e")).block(Waits.GRANTED))
                            .isInstanceOf(LockLeaseExpiredException.class);
                    assertThat(ledger.rows("e")).isOne();
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    await().atMost(Waits.GRANTED)
                            .untilAsserted(() -> assertThat(lostBeforeCommit(meters, LockMetrics.COMMITTED))
                                    .isEqualTo(1));
                });
    }

    @Test
    void aTransactionalOperatorsTransactionInsideTheLockIsCheckedToo() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> ledger.bookProgrammatically("f", forceUnlocked("ledger:f"))
                            .block(Waits.GRANTED))
                    .isInstanceOf(LockLostBeforeCommitException.class)
                    .hasMessageContaining("ledger:f");
            assertThat(ledger.rows("f")).isZero();

            ledger.bookProgrammatically("g", Mono.empty()).block(Waits.GRANTED);
            assertThat(ledger.rows("g")).isOne();
        });
    }

    @Test
    void askingTwiceInOneTransactionRegistersOneCheck() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThat(ledger.checksRegisteredAfterAskingTwice("h").block(Waits.GRANTED))
                    .isOne();
        });
    }

    @Test
    void outsideALocksPublisherItFailsAndSaysWhere() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> ReactiveLockContext.checkBeforeCommit().block(Waits.GRANTED))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no @DistributedLock Mono or Flux encloses this publisher");
            // in a transaction, but no lock around it
            assertThatThrownBy(() -> ledger.bookUnlocked("i").block(Waits.GRANTED))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("no @DistributedLock Mono or Flux encloses this publisher");
            assertThat(ledger.rows("i")).isZero();
        });
    }

    @Test
    void outsideATransactionItFailsAndSaysHowToFixIt() {
        runner().run(context -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> ledger.bookWithoutTransaction("j").block(Waits.GRANTED))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Ledger.bookWithoutTransaction")
                    .hasMessageContaining("found no reactive transaction")
                    .hasMessageContaining("TransactionalOperator");
        });
    }

    @Test
    void startUpSaysWhatAReactiveTransactionalMethodNeeds(CapturedOutput output) {
        runner().run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(output)
                    .containsOnlyOnce("Ledger.book(String, Mono) is reactive and @Transactional:"
                            + " its transaction is checked before it commits only if its publisher composes"
                            + " ReactiveLockContext.checkBeforeCommit()")
                    .contains("Ledger.bookAndReport(String, Mono) is reactive and @Transactional")
                    // no @Transactional: its TransactionalOperator is not seen, and no lock: not a lock's method
                    .doesNotContain("Ledger.bookProgrammatically(String, Mono) is reactive")
                    .doesNotContain("Ledger.bookUnlocked(String) is reactive");
        });
    }

    @Test
    void switchedOffItIsANoOpAndTheTransactionCommitsUnchecked() {
        runner().withPropertyValues("distlock.transaction.check-before-commit=false")
                .run(context -> {
                    Ledger ledger = context.getBean(Ledger.class);
                    assertThatThrownBy(() ->
                                    ledger.book("k", forceUnlocked("ledger:k")).block(Waits.GRANTED))
                            .isInstanceOf(LockLeaseExpiredException.class);
                    assertThat(ledger.rows("k")).isOne();
                });
    }

    public static class Ledger {
        private final DatabaseClient db;
        private final TransactionalOperator operator;

        public Ledger(DatabaseClient db, TransactionalOperator operator) {
            this.db = db;
            this.operator = operator;
        }

        @Transactional
        @DistributedLock(key = "'ledger:' + #account")
        public Mono<Void> book(String account, Mono<Void> beforeCommit) {
            return insert(account).then(ReactiveLockContext.checkBeforeCommit()).then(beforeCommit);
        }

        @Transactional
        @DistributedLock(key = "'ledger:' + #account", onLostBeforeCommit = OnLostBeforeCommit.COMMIT_AND_REPORT)
        public Mono<Void> bookAndReport(String account, Mono<Void> beforeCommit) {
            return insert(account).then(ReactiveLockContext.checkBeforeCommit()).then(beforeCommit);
        }

        @DistributedLock(key = "'ledger:' + #account")
        public Mono<Void> bookProgrammatically(String account, Mono<Void> beforeCommit) {
            return operator.transactional(insert(account)
                    .then(ReactiveLockContext.checkBeforeCommit())
                    .then(beforeCommit));
        }

        @Transactional
        @DistributedLock(key = "'ledger:' + #account")
        public Mono<Integer> checksRegisteredAfterAskingTwice(String account) {
            return insert(account)
                    .then(ReactiveLockContext.checkBeforeCommit())
                    .then(ReactiveLockContext.checkBeforeCommit())
                    .then(TransactionSynchronizationManager.forCurrentTransaction())
                    .map(transaction -> (int) transaction.getSynchronizations().stream()
                            .filter(ReactiveCommitCheck.class::isInstance)
                            .count());
        }

        @Transactional
        public Mono<Void> bookUnlocked(String account) {
            return insert(account).then(ReactiveLockContext.checkBeforeCommit());
        }

        @DistributedLock(key = "'ledger:' + #account")
        public Mono<Void> bookWithoutTransaction(String account) {
            return ReactiveLockContext.checkBeforeCommit();
        }

        Mono<Void> insert(String account) {
            return db.sql("INSERT INTO booking(account) VALUES (:account)")
                    .bind("account", account)
                    .then();
        }

        long rows(String account) {
            return db.sql("SELECT COUNT(*) AS n FROM booking WHERE account = :account")
                    .bind("account", account)
                    .map(row -> row.get("n", Long.class))
                    .one()
                    .block(Waits.GRANTED);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TxConfig {
        @Bean
        ConnectionFactory connectionFactory(Environment environment) {
            ConnectionFactory connections = H2ConnectionFactory.inMemory(environment.getProperty("test.db"));
            DatabaseClient.create(connections)
                    .sql("CREATE TABLE booking (account VARCHAR(20) NOT NULL)")
                    .then()
                    .block(Waits.GRANTED);
            return connections;
        }

        @Bean
        ReactiveTransactionManager transactionManager(ConnectionFactory connections) {
            return new R2dbcTransactionManager(connections);
        }

        @Bean
        Ledger ledger(ConnectionFactory connections, ReactiveTransactionManager transactions) {
            return new Ledger(DatabaseClient.create(connections), TransactionalOperator.create(transactions));
        }
    }
}
