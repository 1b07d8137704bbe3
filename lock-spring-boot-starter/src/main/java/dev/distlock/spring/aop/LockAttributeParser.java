package dev.distlock.spring.aop;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.LockType;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.autoconfigure.DistributedLockConfigurationException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.PropertyResolver;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/** Turns a {@link DistributedLock} into checked {@link LockAttributes}, failing with a clear message. */
final class LockAttributeParser {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();

    private final PropertyResolver properties;
    private final Duration defaultWait;
    private final Duration defaultLease;
    private final boolean redlockConfigured;

    LockAttributeParser(PropertyResolver properties, Duration defaultWait, Duration defaultLease, boolean redlockConfigured) {
        this.properties = properties;
        this.defaultWait = defaultWait;
        this.defaultLease = defaultLease;
        this.redlockConfigured = redlockConfigured;
    }

    LockAttributes parse(DistributedLock annotation, Method method, Class<?> targetClass) {
        String where = describe(method, targetClass);
        rejectAsync(method, where);
        String label = annotation.name().isBlank() ? targetClass.getSimpleName() + "." + method.getName() : annotation.name().trim();
        String single = annotation.key().trim();
        String[] several = annotation.keys();
        if (!single.isEmpty() && several.length > 0) {
            throw new DistributedLockConfigurationException("@DistributedLock on " + where + " sets both key and keys",
                    "Use key for one lock, or keys for several locked together");
        }
        List<LockAttributes.Key> keys = several.length > 0
                ? Arrays.stream(several).map(k -> key(k.trim(), "keys", where)).toList()
                : List.of(single.isEmpty() ? new LockAttributes.Key(label, null) : key(single, "key", where));
        Duration wait = duration(annotation.waitTime(), "waitTime", where, defaultWait);
        Duration lease = duration(annotation.leaseTime(), "leaseTime", where, defaultLease);
        if (lease != null && lease.isZero()) {
            throw new DistributedLockConfigurationException("@DistributedLock on " + where + " has leaseTime 0",
                    "Give a positive leaseTime, or leave it empty to use the watchdog lease renewed while the method runs");
        }
        Class<?> returnType = method.getReturnType();
        if (annotation.onFailure() == OnLockFailure.SKIP && returnType.isPrimitive() && returnType != void.class) {
            throw new DistributedLockConfigurationException("@DistributedLock(onFailure = SKIP) on " + where
                    + " returns the primitive " + returnType.getName() + ", which cannot be skipped (there is no value to return)",
                    "Return a wrapper type or Optional, or use onFailure = THROW");
        }
        if (several.length > 0 && annotation.type() != LockType.REENTRANT) {
            throw new DistributedLockConfigurationException("@DistributedLock on " + where + " combines keys with type = "
                    + annotation.type() + ", which multi-key locks do not support",
                    "Use type = REENTRANT with keys, or a single key with type = " + annotation.type());
        }
        if (annotation.redlock()) {
            if (!redlockConfigured) {
                throw new DistributedLockConfigurationException("@DistributedLock(redlock = true) on " + where
                        + " needs RedLock nodes, but distributed-lock.redlock.nodes is not set",
                        "List at least 3 independent Redis masters in distributed-lock.redlock.nodes, or remove redlock = true");
            }
            if (several.length > 0 || annotation.type() != LockType.REENTRANT) {
                throw new DistributedLockConfigurationException("@DistributedLock(redlock = true) on " + where + " combines RedLock with "
                        + (several.length > 0 ? "keys" : "type = " + annotation.type()) + ", which RedLock does not support",
                        "Use redlock = true with a single key and the default type");
            }
        }
        return new LockAttributes(where, label, annotation.type(), annotation.redlock(), keys, several.length > 0, wait, lease, annotation.onFailure(), returnType == Optional.class);
    }

    private static LockAttributes.Key key(String key, String attribute, String where) {
        if (key.isEmpty()) {
            throw new DistributedLockConfigurationException("@DistributedLock on " + where + " has an empty entry in " + attribute,
                    "Give every key a value, e.g. keys = {\"'account:' + #from\", \"'account:' + #to\"}");
        }
        if (!isExpression(key)) {
            return new LockAttributes.Key(key, null);
        }
        try {
            return new LockAttributes.Key(null, PARSER.parseExpression(key));
        } catch (ParseException e) {
            throw new DistributedLockConfigurationException("@DistributedLock on " + where + " has " + attribute + " \"" + key
                    + "\", which is not a valid SpEL expression: " + e.getSimpleMessage(),
                    "Fix the expression, e.g. key = \"'order:' + #orderId\"; a key without #, @, quotes or parentheses is used as a literal", e);
        }
    }

    /** A key is SpEL when it uses a variable, a bean, a string literal or a call; otherwise it is taken as written. */
    static boolean isExpression(String key) {
        return key.indexOf('#') >= 0 || key.indexOf('@') >= 0 || key.indexOf('\'') >= 0 || key.indexOf('(') >= 0;
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
            throw new DistributedLockConfigurationException("@DistributedLock on " + where + " has " + attribute + " \"" + text
                    + "\", which is not a duration: " + e.getMessage(),
                    "Use a duration such as 500ms, 2s, 1m, PT2S or a ${property} that holds one", e);
        }
        if (value.isNegative()) {
            throw new DistributedLockConfigurationException("@DistributedLock on " + where + " has a negative " + attribute + " \"" + text + "\"",
                    "Use a duration of 0 or more");
        }
        return value;
    }

    private static void rejectAsync(Method method, String where) {
        Class<?> type = method.getReturnType();
        boolean async = CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)
                || type.getName().startsWith("reactor.core.publisher.") || type.getName().equals("org.reactivestreams.Publisher")
                || type.getName().startsWith("kotlinx.coroutines.");
        if (async) {
            throw new DistributedLockConfigurationException("@DistributedLock on " + where + " returns " + type.getSimpleName()
                    + ": the lock would be released when the method returns, before the asynchronous work completes",
                    "Put @DistributedLock on a method that does the work synchronously");
        }
    }

    static String describe(Method method, Class<?> targetClass) {
        String params = Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "));
        return targetClass.getSimpleName() + "." + method.getName() + "(" + params + ")";
    }
}
