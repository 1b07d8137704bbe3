package dev.distlock.spring.aop;

import dev.distlock.spring.execution.LockExecutor;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
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
     * @param redlockConfigured whether distributed-lock.redlock.nodes is set
     * @param order the advisor's order (distributed-lock.aop.order)
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
