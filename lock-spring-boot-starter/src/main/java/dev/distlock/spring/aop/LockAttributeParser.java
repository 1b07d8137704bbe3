package dev.distlock.spring.aop;

import dev.distlock.core.LockType;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.DistributedLockConfigurationException;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.execution.CallStyle;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.ClassUtils;

/** Turns a {@link DistributedLock} into checked {@link LockAttributes}, failing with a clear message. */
final class LockAttributeParser {

    private static final String FLOW = "kotlinx.coroutines.flow.Flow";
    /** Spring calls suspend functions through kotlinx-coroutines-reactor and kotlin-reflect, and adapts Flow with the former. */
    private static final boolean KOTLIN_SUPPORTED =
            ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", LockAttributeParser.class.getClassLoader())
                    && ClassUtils.isPresent("kotlin.reflect.full.KClasses", LockAttributeParser.class.getClassLoader());

    private final PropertyResolver properties;
    private final Duration defaultWait;
    private final Duration defaultLease;
    private final boolean redlockConfigured;

    LockAttributeParser(
            PropertyResolver properties, Duration defaultWait, Duration defaultLease, boolean redlockConfigured) {
        this.properties = properties;
        this.defaultWait = defaultWait;
        this.defaultLease = defaultLease;
        this.redlockConfigured = redlockConfigured;
    }

    LockAttributes parse(DistributedLock annotation, Method method, Class<?> targetClass) {
        String where = describe(method, targetClass);
        CallStyle result = result(method, where);
        String label = annotation.name().isBlank()
                ? targetClass.getSimpleName() + "." + method.getName()
                : annotation.name().trim();
        String single = annotation.key().trim();
        String[] several = annotation.keys();
        if (!single.isEmpty() && several.length > 0) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " sets both key and keys",
                    "Use key for one lock, or keys for several locked together");
        }
        List<LockAttributes.Key> keys = several.length > 0
                ? Arrays.stream(several)
                        .map(k -> KeyExpressions.key(k.trim(), "keys", method, where))
                        .toList()
                : List.of(
                        single.isEmpty()
                                ? new LockAttributes.Key(label, null)
                                : KeyExpressions.key(single, "key", method, where));
        Duration wait = duration(annotation.waitTime(), "waitTime", where, defaultWait);
        Duration lease = duration(annotation.leaseTime(), "leaseTime", where, defaultLease);
        if (lease != null && lease.compareTo(RedisLock.MIN_LEASE) < 0) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " has leaseTime " + lease + ", under the "
                            + RedisLock.MIN_LEASE.toMillis()
                            + " ms minimum: a shorter lease ends before Redis's grant reaches the client",
                    "Give a leaseTime well above the round trip to Redis, or leave it empty to use the watchdog lease"
                            + " renewed while the method runs");
        }
        Duration holdAtLeast = holdAtLeast(annotation, where, lease);
        Duration maxHold = maxHold(annotation, where, lease);
        Class<?> returnType = method.getReturnType();
        if (annotation.onFailure() == OnLockFailure.SKIP && returnType.isPrimitive() && returnType != void.class) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock(onFailure = SKIP) on " + where + " returns the primitive " + returnType.getName()
                            + ", which cannot be skipped (there is no value to return)",
                    "Return a wrapper type or Optional, or use onFailure = THROW");
        }
        // type = REDLOCK is redlock = true: a reentrant lock granted by a majority of the RedLock nodes
        boolean redlock = annotation.redlock() || annotation.type() == LockType.REDLOCK;
        LockType type = Semaphores.type(annotation, where, several.length > 0, redlock, holdAtLeast);
        if (several.length > 0 && type != LockType.REENTRANT) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " combines keys with type = " + type
                            + ", which multi-key locks do not support",
                    "Use type = REENTRANT with keys, or a single key with type = " + type);
        }
        if (redlock) {
            if (!redlockConfigured) {
                throw new DistributedLockConfigurationException(
                        "@DistributedLock(" + (annotation.redlock() ? "redlock = true" : "type = REDLOCK") + ") on "
                                + where + " needs RedLock nodes, but distlock.redlock.nodes is not set",
                        "List at least 3 independent Redis masters in distlock.redlock.nodes, or remove redlock = true");
            }
            if (several.length > 0 || type != LockType.REENTRANT) {
                throw new DistributedLockConfigurationException(
                        "@DistributedLock(" + (annotation.redlock() ? "redlock = true" : "type = REDLOCK") + ") on "
                                + where + " combines RedLock with "
                                + (several.length > 0 ? "keys" : "type = " + type)
                                + ", which RedLock does not support",
                        "Use redlock = true with a single key and the default type");
            }
        }
        return new LockAttributes(
                where,
                label,
                type,
                redlock,
                keys,
                several.length > 0,
                wait,
                lease,
                holdAtLeast,
                maxHold,
                annotation.permits(),
                annotation.onFailure(),
                annotation.onLostBeforeCommit(),
                returnsOptional(method, result),
                result);
    }

    private @Nullable Duration maxHold(DistributedLock annotation, String where, @Nullable Duration lease) {
        Duration cap = duration(annotation.maxHold(), "maxHold", where, null);
        if (cap == null) {
            return null;
        }
        if (lease != null) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " sets maxHold " + cap + " with the fixed leaseTime " + lease
                            + ", which is never renewed: the lease is already the cap",
                    "Remove maxHold to keep the fixed lease, or remove leaseTime to use the watchdog capped at maxHold");
        }
        if (cap.compareTo(RedisLock.MIN_LEASE) < 0) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " has maxHold " + cap + ", under the "
                            + RedisLock.MIN_LEASE.toMillis() + " ms minimum",
                    "Give a maxHold longer than the method normally runs, for example 10m");
        }
        return cap;
    }

    private Duration holdAtLeast(DistributedLock annotation, String where, Duration lease) {
        Duration keep = duration(annotation.holdAtLeast(), "holdAtLeast", where, Duration.ZERO);
        if (keep.isZero()) {
            return keep;
        }
        boolean redlock = annotation.redlock() || annotation.type() == LockType.REDLOCK;
        if (annotation.type() != LockType.REENTRANT || redlock) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " sets holdAtLeast with "
                            + (annotation.redlock() ? "redlock = true" : "type = " + annotation.type())
                            + ", which cannot stay taken after the method returns",
                    "Use holdAtLeast with the default type (a single key or keys) and without redlock, or remove holdAtLeast");
        }
        if (lease != null && keep.compareTo(lease) > 0) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " has holdAtLeast " + keep + " longer than its leaseTime " + lease
                            + ": the lease ends the hold first",
                    "Make holdAtLeast at most leaseTime (ShedLock: lockAtLeastFor <= lockAtMostFor)");
        }
        return keep;
    }

    private Duration duration(String text, String attribute, String where, Duration fallback) {
        if (text.isBlank()) {
            return fallback;
        }
        String resolved;
        Duration value;
        try {
            resolved = properties.resolveRequiredPlaceholders(text.trim());
            value = DurationStyle.detectAndParse(resolved);
        } catch (IllegalArgumentException e) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " has " + attribute + " \"" + text
                            + "\", which is not a duration: " + e.getMessage(),
                    "Use a duration such as 500ms, 2s, 1m, PT2S or a ${property} that holds one",
                    e);
        }
        if (value.isNegative()) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " has a negative " + attribute + " \"" + text + "\"",
                    "Use a duration of 0 or more");
        }
        if (value.compareTo(RedisLock.MAX_DURATION) > 0) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " has " + attribute + " \"" + text + "\", over the "
                            + RedisLock.MAX_DURATION.toDays() + " days a lock accepts",
                    "Use at most " + RedisLock.MAX_DURATION.toDays()
                            + " days; for a lease, leave leaseTime empty to use"
                            + " the watchdog lease renewed while the method runs");
        }
        return value;
    }

    /** How the method delivers its result; a deferred result we cannot hold the lock for fails start-up, saying what to do. */
    private static CallStyle result(Method method, String where) {
        Class<?> type = method.getReturnType();
        Class<?>[] parameters = method.getParameterTypes();
        boolean suspend = parameters.length > 0
                && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation");
        // A suspend function returns Object in bytecode: its declared type comes from Kotlin's metadata.
        boolean flow = (suspend && KOTLIN_SUPPORTED ? new MethodParameter(method, -1).getParameterType() : type)
                .getName()
                .equals(FLOW);
        if ((suspend || flow) && !KOTLIN_SUPPORTED) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where
                            + (suspend ? " is a Kotlin suspend function" : " returns a Kotlin Flow")
                            + ", which needs kotlinx-coroutines-reactor and kotlin-reflect on the classpath"
                            + " (Spring calls suspend functions through Reactor), and they are missing",
                    "Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor and org.jetbrains.kotlin:kotlin-reflect to the dependencies");
        }
        if (suspend && flow) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " is a suspend function returning a Flow,"
                            + " which @DistributedLock does not support: the lock would cover building the Flow, not collecting it",
                    "Drop suspend from the function (a Flow is cold already): the lock is then held while the Flow is collected");
        }
        if (suspend) {
            return CallStyle.SUSPEND;
        }
        if (flow) {
            return CallStyle.FLOW;
        }
        if (type == CompletionStage.class || type == CompletableFuture.class) {
            return CallStyle.STAGE;
        }
        if (type.getName().equals("reactor.core.publisher.Mono")) {
            return CallStyle.MONO;
        }
        if (type.getName().equals("reactor.core.publisher.Flux")) {
            return CallStyle.FLUX;
        }
        if (CompletionStage.class.isAssignableFrom(type)) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " returns " + type.getName()
                            + ", a CompletionStage the lock cannot hand back (it returns a CompletableFuture that completes with the method's)",
                    "Declare the return type as CompletionStage or CompletableFuture");
        }
        if (Future.class.isAssignableFrom(type)) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " returns " + type.getSimpleName()
                            + ", a Future that is not a CompletionStage: nothing says when its work completes without blocking a thread,"
                            + " so the lock would be released before the work is done",
                    "Return CompletableFuture or CompletionStage (e.g. from CompletableFuture.supplyAsync(...); the call"
                            + " returns at once without @Async), or do the work synchronously");
        }
        String deferred = DeferredResults.why(type);
        if (deferred != null) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " returns " + type.getName()
                            + ", which @DistributedLock does not support: " + deferred
                            + ", so the lock would be released when the method returns, before that work is done",
                    "Return a Reactor Mono or Flux, or a CompletableFuture, whose end the lock waits for (Spring MVC accepts"
                            + " them too; adapt with Mono.from, Flux.from, Flux.fromStream or the library's adapters);"
                            + " or take the lock inside the deferred work (LockTemplate, or a @DistributedLock method it"
                            + " calls); or do the work synchronously (e.g. collect a Stream into a List)");
        }
        return CallStyle.VALUE;
    }

    /** Whether SKIP yields {@code Optional.empty()}: the method returns Optional, or a stage of Optional. */
    private static boolean returnsOptional(Method method, CallStyle result) {
        if (result == CallStyle.STAGE) {
            return ResolvableType.forMethodReturnType(method)
                            .as(CompletionStage.class)
                            .getGeneric(0)
                            .resolve()
                    == Optional.class;
        }
        return method.getReturnType() == Optional.class;
    }

    static String describe(Method method, Class<?> targetClass) {
        String params = Arrays.stream(method.getParameterTypes())
                .map(Class::getSimpleName)
                .collect(Collectors.joining(", "));
        return targetClass.getSimpleName() + "." + method.getName() + "(" + params + ")";
    }
}
