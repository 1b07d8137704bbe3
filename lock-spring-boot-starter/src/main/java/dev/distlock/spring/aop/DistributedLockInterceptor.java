package dev.distlock.spring.aop;

import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.execution.LockExecutor;
import dev.distlock.spring.execution.LockRequest;
import dev.distlock.spring.execution.LockedCalls;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs a {@code @DistributedLock} method inside its lock: resolves the call's keys into a
 * {@link LockRequest} and hands it to {@link LockedCalls}, which runs it in the style of the method's
 * return type through the {@link LockExecutor} that {@code LockTemplate} uses too.
 */
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
        Class<?> targetClass = target != null
                ? AopUtils.getTargetClass(target)
                : invocation.getMethod().getDeclaringClass();
        Method method = invocation.getMethod();
        LockAttributes attrs = attributes.get(method, targetClass);
        if (attrs == null) {
            return invocation.proceed();
        }
        LockRequest request;
        try {
            request = request(attrs, invocation, method, target, targetClass);
        } catch (RuntimeException e) {
            return LockedCalls.failed(attrs.result(), e);
        }
        return LockedCalls.call(
                attrs.result(),
                executor.get(),
                request,
                invocation,
                returned -> plainValue(attrs, method, returned),
                whenBusy(attrs));
    }

    /**
     * A method declared to return a plain value ({@code Object}, a type variable) may still return deferred work,
     * which the lock, released on return, would not cover. The method has run under the lock by then: the call
     * fails, so that the caller never takes such a result for locked work (the lock is released as for any failure).
     */
    private Object plainValue(LockAttributes attrs, Method method, Object returned) {
        String why = DeferredResults.of(returned);
        if (why == null) {
            return returned;
        }
        throw new IllegalStateException("@DistributedLock method " + attrs.method() + " is declared to return "
                + method.getGenericReturnType().getTypeName() + " but returned a "
                + returned.getClass().getName() + ": " + why
                + ", while the lock is released when the method returns. The method ran under the lock, but its result"
                + " is not handed back, as its work would run unlocked (work it started already may still be running)."
                + " Declare the real return type, so that the lock can follow it (CompletableFuture, CompletionStage,"
                + " Mono, Flux) or start-up can say what to do instead");
    }

    private LockRequest request(
            LockAttributes attrs, MethodInvocation invocation, Method method, Object target, Class<?> targetClass) {
        List<String> resolved = keys.resolve(
                attrs,
                AopUtils.getMostSpecificMethod(method, targetClass),
                invocation.getArguments(),
                target,
                targetClass);
        return new LockRequest(
                attrs.method(),
                attrs.label(),
                attrs.type(),
                attrs.redlock(),
                resolved,
                attrs.multi(),
                attrs.waitTime(),
                attrs.leaseTime(),
                attrs.holdAtLeast(),
                attrs.maxHold(),
                attrs.permits(),
                attrs.onLostBeforeCommit());
    }

    private static Supplier<Object> whenBusy(LockAttributes attrs) {
        return attrs.onFailure() == OnLockFailure.SKIP ? () -> attrs.returnsOptional() ? Optional.empty() : null : null;
    }
}
