package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedLockClient;
import dev.distlock.spring.DistributedLockConfigurationException;
import dev.distlock.spring.LockTemplate;
import dev.distlock.spring.aop.DistributedLockAdvisor;
import dev.distlock.spring.aop.LockCoverageCheck;
import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.BeforeCommitCheck;
import dev.distlock.spring.execution.Invoker;
import dev.distlock.spring.execution.LockExecutor;
import dev.distlock.spring.execution.LockSource;
import dev.distlock.spring.execution.RedisLockSource;
import dev.distlock.spring.fence.SpringFenceStores;
import dev.distlock.spring.metrics.LockInstrumentation;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Distributed locks on the application's own Redis connection: a {@link LockClient} built from the
 * Lettuce client behind Spring Boot's {@link RedisConnectionFactory} (so every
 * {@code spring.data.redis.*} setting applies), and the {@code @DistributedLock} advisor. Beside a
 * factory that is not Lettuce (Jedis, Redisson's), the locks open their own Lettuce connection to the
 * same Redis ({@link SeparateRedisClientConfiguration}).
 */
@AutoConfiguration(
        afterName = {
            // Spring Boot 4.x, then 3.5.x: the one on the classpath orders us, the other is ignored.
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
            "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"
        })
@ConditionalOnClass({LockClient.class, LettuceConnectionFactory.class})
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistributedLockProperties.class)
@Import({DistributedLockAutoConfiguration.AutoProxyRegistrar.class, SeparateRedisClientConfiguration.class})
@ImportRuntimeHints(DistributedLockRuntimeHints.class)
public class DistributedLockAutoConfiguration {

    /** Lifecycle phase of the lock client: above the connection factory's 0, far below executors and web servers. */
    static final int LIFECYCLE_PHASE = 1024;

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnProperty(name = "distlock.mode", havingValue = "redis", matchIfMissing = true)
    LockClient distributedLockClient(
            ObjectProvider<RedisConnectionFactory> connectionFactory,
            DistributedLockProperties properties,
            ObjectProvider<LockListener> listeners,
            ObjectProvider<LockClientOptionsCustomizer> customizers,
            SeparateRedisClient separateClient,
            Environment environment) {
        LockClientOptions options = LockClientSettings.options(properties, listeners, customizers, environment);
        RedisConnectionFactory factory = connectionFactory.getIfAvailable();
        if (factory == null) {
            throw new DistributedLockConfigurationException(
                    "Distributed locks need Redis, but there is no RedisConnectionFactory bean",
                    "Configure Redis with spring.data.redis.* (spring-boot-starter-data-redis is on the classpath); for tests or"
                            + " single-instance development only, distlock.mode=local keeps locks in this JVM (not distributed)");
        }
        if (!(factory instanceof LettuceConnectionFactory lettuce)) {
            return separateClient.connect(factory, options);
        }
        if (!lettuce.isRunning()) {
            lettuce.start();
        }
        try {
            return LockClientSettings.connect(lettuce.getNativeClient(), options);
        } catch (LockException e) {
            throw new DistributedLockConfigurationException(
                    "Distributed locks could not connect to Redis (" + LockClientSettings.describe(lettuce) + "): "
                            + LockClientSettings.rootMessage(e),
                    "Check spring.data.redis.host/port (or url, sentinel.*, cluster.*), username/password and ssl, and that Redis is running",
                    e);
        }
    }

    /**
     * Closes the lock client before the connection factory stops (phase 0) and shuts down the Lettuce
     * client it shares, but after web servers and task executors (higher phases) let running work end.
     */
    @Bean
    @ConditionalOnProperty(name = "distlock.mode", havingValue = "redis", matchIfMissing = true)
    SmartLifecycle distributedLockClientLifecycle(LockClient client) {
        return new SmartLifecycle() {
            private volatile boolean running = true;

            @Override
            public void start() {
                running = true;
            }

            @Override
            public void stop() {
                running = false;
                client.close();
            }

            @Override
            public boolean isRunning() {
                return running;
            }

            @Override
            public int getPhase() {
                return LIFECYCLE_PHASE;
            }
        };
    }

    /** A RedLock client over distlock.redlock.nodes, for {@code @DistributedLock(redlock = true)}. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @Conditional(RedLockNodesConfigured.class)
    @ConditionalOnProperty(name = "distlock.mode", havingValue = "redis", matchIfMissing = true)
    RedLockClient distributedRedLockClient(
            DistributedLockProperties properties,
            ObjectProvider<LockListener> listeners,
            ObjectProvider<LockClientOptionsCustomizer> customizers,
            Environment environment) {
        List<String> nodes = properties.getRedlock().getNodes();
        if (nodes.size() < RedLockClient.MIN_NODES) {
            throw new DistributedLockConfigurationException(
                    "distlock.redlock.nodes lists " + nodes.size() + " node(s), but a RedLock needs at least "
                            + RedLockClient.MIN_NODES + " independent Redis masters",
                    "List 3 or more (an odd number, such as 3 or 5) redis:// or rediss:// URIs of masters that do not replicate each other in distlock.redlock.nodes");
        }
        List<RedisURI> uris = new ArrayList<>();
        for (String node : nodes) {
            try {
                uris.add(RedisURI.create(node.trim()));
            } catch (RuntimeException e) {
                throw new DistributedLockConfigurationException(
                        "distlock.redlock.nodes has \"" + node + "\", which is not a Redis URI: " + e.getMessage(),
                        "Write each node of distlock.redlock.nodes as redis://[user:password@]host:port or rediss://... for TLS",
                        e);
            }
        }
        LockClientOptions options = LockClientSettings.options(properties, listeners, customizers, environment);
        try {
            return RedLockClient.connect(uris, options);
        } catch (IllegalArgumentException e) {
            throw new DistributedLockConfigurationException(
                    "distlock.redlock.nodes " + nodes + ": " + e.getMessage(),
                    "List each Redis master once in distlock.redlock.nodes",
                    e);
        } catch (RuntimeException e) {
            throw new DistributedLockConfigurationException(
                    "The RedLock client could not start on distlock.redlock.nodes " + nodes + ": "
                            + LockClientSettings.rootMessage(e),
                    "Check that the nodes are running and reachable, and their passwords/TLS settings",
                    e);
        }
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static DistributedLockAdvisor distributedLockAdvisor(
            ObjectProvider<LockExecutor> executor, BeanFactory beanFactory, Environment environment) {
        // Bound here rather than injected: advisors are created before most beans, and must not pull them in early.
        DistributedLockProperties properties =
                Binder.get(environment).bindOrCreate("distlock", DistributedLockProperties.class);
        Duration wait = LockClientSettings.checkedWait(properties.getWaitTime(), environment);
        Duration lease = LockClientSettings.checkedLease(properties.getLeaseTime(), environment);
        // In local mode a redlock = true method is a local lock like any other: no nodes needed.
        boolean redlockAvailable = !properties.getRedlock().getNodes().isEmpty()
                || properties.getMode() == DistributedLockProperties.Mode.LOCAL;
        return new DistributedLockAdvisor(
                executor::getObject,
                beanFactory,
                environment,
                new DistributedLockAdvisor.Settings(
                        wait, lease, redlockAvailable, properties.getAop().getOrder()));
    }

    /** Where locks come from: the application's Redis (and the RedLock nodes, when set). */
    @Bean
    @ConditionalOnMissingBean
    LockSource distributedLockSource(ObjectProvider<LockClient> client, ObjectProvider<RedLockClient> redLockClient) {
        return new RedisLockSource(client::getObject, redLockClient::getIfAvailable);
    }

    /** The holds taken through the starter and not yet released, for the Actuator endpoint. */
    @Bean
    @ConditionalOnMissingBean
    ActiveHolds distributedLockActiveHolds() {
        return new ActiveHolds();
    }

    /** The one code path of @DistributedLock and LockTemplate; async work on virtual threads when the application asks. */
    @Bean
    @ConditionalOnMissingBean
    LockExecutor distributedLockExecutor(
            LockSource source,
            ActiveHolds holds,
            ObjectProvider<LockInstrumentation> instrumentation,
            DistributedLockProperties properties,
            Environment environment,
            ObjectProvider<DataSource> dataSources,
            ObjectProvider<RedisConnectionFactory> redis,
            ObjectProvider<BeforeCommitCheck> beforeCommitCheck) {
        return new LockExecutor(
                source,
                holds,
                () -> instrumentation.getIfAvailable(() -> LockInstrumentation.NONE),
                properties.isThrowOnLeaseLost(),
                properties.getOnLeaseLost() == DistributedLockProperties.OnLeaseLost.INTERRUPT,
                Invoker.create(environment.getProperty("spring.threads.virtual.enabled", Boolean.class, false)),
                new SpringFenceStores(
                        dataSources::getIfUnique,
                        redis::getIfAvailable,
                        properties.getFence().getTable()),
                beforeCommitCheck::getIfAvailable);
    }

    /** Locks for code that cannot use the annotation, with the same defaults, metrics and exceptions. */
    @Bean
    @ConditionalOnMissingBean
    LockTemplate distributedLockTemplate(
            LockExecutor executor, DistributedLockProperties properties, Environment environment) {
        Duration lease = LockClientSettings.checkedLease(properties.getLeaseTime(), environment);
        return new LockTemplate(
                executor,
                lease,
                !properties.getRedlock().getNodes().isEmpty()
                        || properties.getMode() == DistributedLockProperties.Mode.LOCAL);
    }

    /** Fails start-up for @DistributedLock methods that no proxy would lock (private, static, final, unproxied beans). */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockCoverageCheck distributedLockCoverageCheck(
            ConfigurableListableBeanFactory beanFactory, ObjectProvider<DistributedLockAdvisor> advisor) {
        return new LockCoverageCheck(beanFactory, advisor.getObject());
    }

    /** Whether distlock.redlock.nodes lists any node (as a YAML list or comma-separated). */
    static class RedLockNodesConfigured extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            boolean set = Binder.get(context.getEnvironment())
                    .bind("distlock.redlock.nodes", Bindable.listOf(String.class))
                    .map(nodes -> !nodes.isEmpty())
                    .orElse(false);
            return set
                    ? ConditionOutcome.match("distlock.redlock.nodes is set")
                    : ConditionOutcome.noMatch("distlock.redlock.nodes is not set");
        }
    }

    /** Makes sure advisors are applied even when Spring Boot's AOP auto-configuration is switched off. */
    static class AutoProxyRegistrar implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
