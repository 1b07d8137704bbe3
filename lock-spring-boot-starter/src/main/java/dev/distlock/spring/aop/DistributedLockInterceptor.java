package dev.distlock.spring.aop;

import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.execution.LockExecutor;
import dev.distlock.spring.execution.LockRequest;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.function.SingletonSupplier;

/** Runs a {@code @DistributedLock} method inside its lock, through the {@link LockExecutor} that {@code LockTemplate} uses too. */
final class DistributedLockInterceptor implements MethodInterceptor {

    /** Looked up on first use: advisors are created early, before the lock client should be. */
    private final Supplier<LockExecutor> executor;
    private final LockAttributeSource attributes;
    private final LockKeyResolver keys;

    DistributedLockInterceptor(Supplier<LockExecutor> executor, LockAttributeSource attributes, LockKeyResolver keys) {
        this.executor = SingletonSupplier.of(executor);
        this.attributes = attributes;
        this.keys = keys;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : invocation.getMethod().getDeclaringClass();
        Method method = invocation.getMethod();
        LockAttributes attrs = attributes.get(method, targetClass);
        if (attrs == null) {
            return invocation.proceed();
        }
        List<String> resolved = keys.resolve(attrs, AopUtils.getMostSpecificMethod(method, targetClass), invocation.getArguments(),
                target, targetClass);
        LockRequest request = new LockRequest(attrs.method(), attrs.label(), attrs.type(), attrs.redlock(), resolved, attrs.multi(),
                attrs.waitTime(), attrs.leaseTime());
        Supplier<Object> whenBusy = attrs.onFailure() == OnLockFailure.SKIP ? () -> attrs.returnsOptional() ? Optional.empty() : null : null;
        return executor.get().execute(request, invocation::proceed, whenBusy);
    }
}
