package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.spring.annotation.OnLostBeforeCommit;
import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.redis.LockHashReader;
import dev.distlock.spring.transaction.CommitCheckListener;
import dev.distlock.spring.transaction.CommitCheckRegistrar;
import dev.distlock.spring.transaction.CommitChecks;
import dev.distlock.spring.transaction.LostBeforeCommitReport;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Commit only while held: every transaction manager gets a listener that adds a before-commit check to the
 * transactions begun inside a lock's work (Spring Framework 6.1+, whose {@code TransactionExecutionListener}
 * tells when a transaction begins). A reactive transaction gets the same check when its publisher asks
 * ({@code ReactiveLockContext.checkBeforeCommit()}). {@code distlock.transaction.check-before-commit=false}
 * switches both off.
 */
@AutoConfiguration(after = {DistributedLockAutoConfiguration.class, DistributedLockLocalAutoConfiguration.class})
@ConditionalOnClass(name = "org.springframework.transaction.TransactionExecutionListener")
@ConditionalOnBooleanProperty(
        name = {"distlock.enabled", "distlock.transaction.check-before-commit"},
        matchIfMissing = true)
public class DistributedLockTransactionAutoConfiguration {

    /** Static and lazy: a post-processor is created before the beans it would otherwise pull in early. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static CommitCheckRegistrar distributedLockCommitCheckRegistrar(
            ObjectProvider<ActiveHolds> holds, ObjectProvider<CommitChecks> checks) {
        return new CommitCheckRegistrar(() -> {
            ActiveHolds active = holds.getIfAvailable();
            CommitChecks check = checks.getIfAvailable();
            return active == null || check == null ? null : new CommitCheckListener(active, check);
        });
    }

    /**
     * The check itself, for imperative transactions (through the listener above) and reactive ones (their lock
     * publishers reach it, see ReactiveLockContext.checkBeforeCommit()).
     */
    @Bean
    @ConditionalOnBean(ActiveHolds.class)
    @ConditionalOnMissingBean
    CommitChecks distributedLockCommitChecks(
            ActiveHolds holds,
            ObjectProvider<LockClient> client,
            ObjectProvider<RedisConnectionFactory> connections,
            ObjectProvider<LostBeforeCommitReport> report,
            Environment environment) {
        DistributedLockProperties properties =
                Binder.get(environment).bindOrCreate("distlock", DistributedLockProperties.class);
        LockClient lockClient =
                properties.getMode() == DistributedLockProperties.Mode.REDIS ? client.getIfAvailable() : null;
        RedisConnectionFactory factory = lockClient == null ? null : connections.getIfAvailable();
        LockHashReader reader = factory == null
                ? null
                : new LockHashReader(factory, properties.getKeyPrefix(), properties.getOperationTimeout());
        return new CommitChecks(
                holds,
                reader,
                () -> lockClient == null ? "" : lockClient.clientId(),
                properties.getTransaction().getOnLostBeforeCommit()
                                == DistributedLockTransactionProperties.OnLost.COMMIT_AND_REPORT
                        ? OnLostBeforeCommit.COMMIT_AND_REPORT
                        : OnLostBeforeCommit.ROLL_BACK,
                report.getIfAvailable(() -> LostBeforeCommitReport.NONE));
    }
}
