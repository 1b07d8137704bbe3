package dev.distlock.spring.aop;

import dev.distlock.spring.annotation.DistributedLock;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Finds {@code @DistributedLock} on a method (or the interface method it implements) and caches the
 * parsed attributes. Parsing happens while proxies are created, so bad attributes fail start-up.
 */
final class LockAttributeSource {

    private final LockAttributeParser parser;
    private final Map<MethodClassKey, Optional<LockAttributes>> cache = new ConcurrentHashMap<>();

    LockAttributeSource(LockAttributeParser parser) {
        this.parser = parser;
    }

    /** The attributes of {@code method} as called on {@code targetClass}, or {@code null} when not annotated. */
    LockAttributes get(Method method, Class<?> targetClass) {
        Class<?> type = targetClass != null ? targetClass : method.getDeclaringClass();
        return cache.computeIfAbsent(new MethodClassKey(method, type), key -> find(method, type))
                .orElse(null);
    }

    private Optional<LockAttributes> find(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
        if (annotation == null && specific != method) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
        }
        return annotation == null ? Optional.empty() : Optional.of(parser.parse(annotation, specific, targetClass));
    }
}
