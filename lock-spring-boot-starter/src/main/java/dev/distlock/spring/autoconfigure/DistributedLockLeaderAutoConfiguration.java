package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.spring.DistributedLockConfigurationException;
import dev.distlock.spring.leader.LeaderCandidates;
import dev.distlock.spring.leader.LeaderElection;
import dev.distlock.spring.leader.Leadership;
import dev.distlock.spring.local.LocalLocks;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.RuntimeBeanReference;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Leader election: a {@link LeaderElection} lifecycle bean per role of {@code distlock.leader.roles}
 * (named {@code distlock.leader.<role>}), the {@link LeaderCandidates} they and yours take candidates
 * from (the Redis lock client, or the local one in {@code distlock.mode=local}), and {@link Leadership}.
 */
@AutoConfiguration(after = {DistributedLockAutoConfiguration.class, DistributedLockLocalAutoConfiguration.class})
@ConditionalOnClass(LockClient.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistributedLockProperties.class)
@Import(DistributedLockLeaderAutoConfiguration.RolesRegistrar.class)
public class DistributedLockLeaderAutoConfiguration {

    static final String ROLES = "distlock.leader.roles";

    /** Candidates on the local lock client in local mode, else on the LockClient bean. */
    @Bean
    @ConditionalOnMissingBean
    LeaderCandidates distributedLockLeaderCandidates(
            ObjectProvider<LocalLocks> local, ObjectProvider<LockClient> client) {
        return (role, listener) -> {
            LocalLocks locks = local.getIfAvailable();
            return locks != null
                    ? locks.leader(role, listener)
                    : client.getObject().leader(role, listener);
        };
    }

    @Bean
    @ConditionalOnMissingBean
    Leadership distributedLockLeadership(ObjectProvider<LeaderElection> elections) {
        return new Leadership(() -> elections.orderedStream().toList());
    }

    /** Fails start-up when two LeaderElection beans stand for one role (a property role and a bean of your own, say). */
    @Bean
    static SmartInitializingSingleton distributedLockLeaderRolesCheck(ObjectProvider<LeaderElection> elections) {
        return () -> {
            Set<String> seen = new HashSet<>();
            elections.orderedStream().forEach(election -> {
                if (!seen.add(election.role())) {
                    throw new DistributedLockConfigurationException(
                            "Two LeaderElection beans stand for role '" + election.role() + "'",
                            "Declare each role once: either in " + ROLES + " or as a LeaderElection bean");
                }
            });
        };
    }

    /** One LeaderElection bean per role of distlock.leader.roles; a blank or repeated role fails start-up. */
    static class RolesRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware {

        private Environment environment;

        @Override
        public void setEnvironment(Environment environment) {
            this.environment = environment;
        }

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            List<String> roles = Binder.get(environment)
                    .bind(ROLES, Bindable.listOf(String.class))
                    .orElse(List.of());
            Set<String> seen = new HashSet<>();
            for (String role : roles) {
                if (role == null || role.isBlank()) {
                    throw new DistributedLockConfigurationException(
                            ROLES + " has a blank role: " + roles,
                            "Name each role in " + ROLES + " after what its leader does, for example billing-consumer");
                }
                if (!seen.add(role)) {
                    throw new DistributedLockConfigurationException(
                            ROLES + " lists '" + role + "' twice: " + roles, "List each role once in " + ROLES);
                }
                RootBeanDefinition election = new RootBeanDefinition(LeaderElection.class);
                election.getConstructorArgumentValues().addIndexedArgumentValue(0, role);
                election.getConstructorArgumentValues()
                        .addIndexedArgumentValue(1, new RuntimeBeanReference(LeaderCandidates.class));
                registry.registerBeanDefinition("distlock.leader." + role, election);
            }
        }
    }
}
