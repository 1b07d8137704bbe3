package dev.distlock.spring.aop;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedLockClient;
import dev.distlock.spring.metrics.LockInstrumentation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
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
     * @param client the lock client, looked up on the first call
     * @param redLockClient the RedLock client, looked up on the first redlock call
     * @param instrumentation meters (and later observations) of every call, looked up on the first call
     * @param redlockConfigured whether distributed-lock.redlock.nodes is set
     * @param throwOnLeaseLost whether a method whose lock was lost throws LockLeaseExpiredException on return
     * @param interruptOnLeaseLost whether the lock client interrupts holders (then the flag is cleared on return)
     * @param defaultWait wait time of annotations that give none
     * @param defaultLease lease of annotations that give none; {@code null} for the watchdog
     */
    public DistributedLockAdvisor(Supplier<LockClient> client, Supplier<RedLockClient> redLockClient,
            Supplier<LockInstrumentation> instrumentation, BeanFactory beanFactory,
            PropertyResolver properties, Duration defaultWait, Duration defaultLease, boolean redlockConfigured, boolean throwOnLeaseLost,
            boolean interruptOnLeaseLost, int order) {
        this.attributes = new LockAttributeSource(new LockAttributeParser(properties, defaultWait, defaultLease, redlockConfigured));
        this.interceptor = new DistributedLockInterceptor(client, redLockClient, instrumentation, attributes, new LockKeyResolver(beanFactory),
                throwOnLeaseLost, interruptOnLeaseLost);
        this.pointcut = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return attributes.get(method, targetClass) != null;
            }
        };
        setOrder(order);
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
