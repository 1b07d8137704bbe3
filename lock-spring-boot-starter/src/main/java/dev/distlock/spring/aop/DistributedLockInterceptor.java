package dev.distlock.spring.aop;

import dev.distlock.core.LockAcquisitionException;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockException;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedLockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.metrics.LockInstrumentation;
import dev.distlock.spring.metrics.LockMetrics;
import dev.distlock.spring.metrics.RecordedByStarter;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;

/** Runs a {@code @DistributedLock} method inside its lock. */
final class DistributedLockInterceptor implements MethodInterceptor {

    private static final Logger log = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    private final Supplier<LockClient> clientSupplier;
    private final Supplier<RedLockClient> redLockSupplier;
    private final LockAttributeSource attributes;
    private final LockKeyResolver keys;
    private final boolean throwOnLeaseLost;
    private final boolean interruptOnLeaseLost;
    private final Supplier<LockInstrumentation> instrumentationSupplier;
    private volatile LockClient client;
    private volatile LockInstrumentation instrumentation;

    DistributedLockInterceptor(Supplier<LockClient> client, Supplier<RedLockClient> redLockClient, Supplier<LockInstrumentation> instrumentation,
            LockAttributeSource attributes, LockKeyResolver keys, boolean throwOnLeaseLost, boolean interruptOnLeaseLost) {
        this.clientSupplier = client;
        this.instrumentationSupplier = instrumentation;
        this.redLockSupplier = redLockClient;
        this.throwOnLeaseLost = throwOnLeaseLost;
        this.interruptOnLeaseLost = interruptOnLeaseLost;
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
        RedisLock lock = lockFor(attrs, resolved);
        String key = lock instanceof RedisMultiLock multi ? String.join(", ", multi.names()) : resolved.get(0);
        LockInstrumentation.Acquisition acquisition = instrumentation().acquiring(attrs.label(), attrs.metricType());
        boolean acquired;
        try {
            acquired = RecordedByStarter.call(() -> acquire(lock, attrs));
        } catch (LockUnavailableException e) {
            acquisition.failed(LockMetrics.UNAVAILABLE, e);
            throw e;
        } catch (Exception e) {
            acquisition.failed(LockMetrics.ERROR, e);
            throw e;
        }
        if (!acquired) {
            acquisition.failed(LockMetrics.TIMEOUT, null);
            if (attrs.onFailure() == OnLockFailure.SKIP) {
                return attrs.returnsOptional() ? Optional.empty() : null;
            }
            throw new LockAcquisitionException(key, attrs.waitTime(), "Lock '" + key + "' for " + attrs.method()
                    + " is held elsewhere and was not released within " + attrs.waitTime().toMillis() + " ms", null);
        }
        LockInstrumentation.Holding holding = acquisition.acquired();
        Map<String, Long> tokens;
        try {
            tokens = lock instanceof RedisMultiLock multi ? multi.fencingTokens() : Map.of(key, lock.currentFencingToken());
        } catch (RuntimeException e) { // the hold was lost already: give it back, say so
            release(lock, attrs, e, holding);
            throw e;
        }
        Throwable failure = null;
        LockContext.enter(tokens);
        try {
            return invocation.proceed();
        } catch (Throwable t) {
            failure = t;
            throw t;
        } finally {
            LockContext.exit();
            release(lock, attrs, failure, holding);
        }
    }

    private LockInstrumentation instrumentation() {
        LockInstrumentation i = instrumentation;
        if (i == null) {
            i = instrumentationSupplier.get();
            instrumentation = i;
        }
        return i;
    }

    /** The core rejects bad names (too long, control characters); say which method produced one and what to change. */
    private RedisLock lockFor(LockAttributes attrs, List<String> resolved) {
        try {
            return attrs.multi() ? client().getMultiLock(resolved, attrs.label()) : lock(attrs, resolved.get(0));
        } catch (IllegalArgumentException e) {
            String advice = e.getMessage().contains("over the limit")
                    ? "; shorten the key expression or raise distributed-lock.max-key-length"
                    : "";
            throw new IllegalArgumentException("@DistributedLock on " + attrs.method() + " cannot lock: " + e.getMessage() + advice, e);
        }
    }

    private RedisLock lock(LockAttributes attrs, String key) {
        if (attrs.redlock()) {
            return redLockSupplier.get().getLock(key, attrs.label());
        }
        LockClient c = client();
        return switch (attrs.type()) {
            case REENTRANT -> c.getLock(key, attrs.label());
            case FAIR -> c.getFairLock(key, attrs.label());
            case READ -> c.getReadWriteLock(key, attrs.label()).readLock();
            case WRITE -> c.getReadWriteLock(key, attrs.label()).writeLock();
        };
    }

    /** Looked up on first use: advisors are created early, before the Redis connection should be. */
    private LockClient client() {
        LockClient c = client;
        if (c == null) {
            c = clientSupplier.get();
            client = c;
        }
        return c;
    }

    private boolean acquire(RedisLock lock, LockAttributes attrs) {
        try {
            return lock.tryLock(attrs.waitTime(), attrs.leaseTime());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockAcquisitionException(lock.getName(), attrs.waitTime(),
                    "Interrupted while waiting for lock '" + lock.getName() + "' for " + attrs.method(), e);
        } catch (LockUnavailableException e) {
            // Not "busy": nobody knows who holds the lock. A distinct type, so callers can answer 503 rather than 409.
            throw new LockUnavailableException("Redis did not answer while " + attrs.method() + " waited up to "
                    + attrs.waitTime().toMillis() + " ms for lock '" + lock.getName() + "': " + e.getMessage(), e);
        } catch (LockException e) {
            throw new LockException("Redis failed while acquiring lock '" + lock.getName() + "' for " + attrs.method() + ": "
                    + e.getMessage(), e);
        }
    }

    /** Releases after the method; a failure to release never hides the method's own exception. */
    private void release(RedisLock lock, LockAttributes attrs, Throwable failure, LockInstrumentation.Holding holding) {
        LockLeaseExpiredException lost = null;
        try {
            unlockRecorded(lock);
        } catch (LockLeaseExpiredException e) {
            lost = e;
            if (interruptOnLeaseLost) {
                Thread.interrupted(); // the interrupt was ours, to stop the method: do not leak it to the caller's thread
            }
            if (failure != null) {
                failure.addSuppressed(e);
            } else if (throwOnLeaseLost) {
                throw e;
            }
            // else: reported already (WARN, distributed.lock.lost, listeners); the caller gets the result
        } catch (LockUnavailableException e) {
            // The method's work is done and mutual exclusion held: the release is retried in the background and the
            // lock frees itself with its lease at the latest. Failing a finished call for that would mislead the caller.
            log.warn("Could not confirm the release of lock '{}' after {}: {}", lock.getName(), attrs.method(), e.getMessage());
            if (failure != null) {
                failure.addSuppressed(e);
            }
        } catch (RuntimeException e) {
            if (failure == null) {
                throw e;
            }
            failure.addSuppressed(e);
        } finally {
            holding.released(lost);
        }
    }

    private static void unlockRecorded(RedisLock lock) {
        try {
            RecordedByStarter.call(() -> {
                lock.unlock();
                return null;
            });
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // unlock throws no checked exception
        }
    }
}
