package dev.distlock.spring.aop;

import dev.distlock.spring.execution.LockExecutor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.PropertyResolver;

/**
 * Applies {@link DistributedLockInterceptor} to every method annotated with
 * {@code @DistributedLock}; its order decides whether the lock wraps other advice such as
 * {@code @Transactional}.
 */
public final class DistributedLockAdvisor extends AbstractPointcutAdvisor {

    private final transient LockAttributeSource attributes;
    private final transient DistributedLockInterceptor interceptor;
    private final transient Pointcut pointcut;

    /**
     * What the advisor needs from the configuration.
     *
     * @param defaultWait wait time of annotations that give none
     * @param defaultLease lease of annotations that give none; {@code null} for the watchdog
     * @param redlockConfigured whether distlock.redlock.nodes is set
     * @param order the advisor's order (distlock.aop.order)
     */
    public record Settings(
            Duration defaultWait, @Nullable Duration defaultLease, boolean redlockConfigured, int order) {}

    /**
     * @param executor runs each call inside its lock (shared with LockTemplate), looked up on the first call
     */
    public DistributedLockAdvisor(
            Supplier<LockExecutor> executor, BeanFactory beanFactory, PropertyResolver properties, Settings settings) {
        this.attributes = new LockAttributeSource(new LockAttributeParser(
                properties, settings.defaultWait(), settings.defaultLease(), settings.redlockConfigured()));
        this.interceptor = new DistributedLockInterceptor(executor, attributes, new LockKeyResolver(beanFactory));
        this.pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return attributes.get(method, targetClass) != null;
            }
        };
        setOrder(settings.order());
    }

    /** A lock as metrics see it: its declared name and its type tag (REENTRANT, FAIR, READ, WRITE or REDLOCK). */
    public record DeclaredLock(String name, String type) {}

    /**
     * The declared locks of every {@code @DistributedLock} method of the factory's beans that a proxy
     * can lock (the start-up coverage check fails on the others), for meters registered at start-up.
     */
    public Set<DeclaredLock> declaredLocks(ConfigurableListableBeanFactory beanFactory) {
        Set<DeclaredLock> locks = new LinkedHashSet<>();
        for (AnnotatedMethods.Bean bean : AnnotatedMethods.find(beanFactory)) {
            for (Method method : bean.methods()) {
                int modifiers = method.getModifiers();
                if (Modifier.isStatic(modifiers) || Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers)) {
                    continue;
                }
                LockAttributes attrs = attributes.get(method, bean.type());
                if (attrs != null) {
                    locks.add(new DeclaredLock(
                            attrs.label(),
                            attrs.redlock() ? "REDLOCK" : attrs.type().name()));
                }
            }
        }
        return locks;
    }

    /** The parsed annotations, for the start-up coverage check. */
    LockAttributeSource attributes() {
        return attributes;
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
