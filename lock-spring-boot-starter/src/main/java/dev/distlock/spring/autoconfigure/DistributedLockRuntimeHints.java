package dev.distlock.spring.autoconfigure;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;

/**
 * What a GraalVM native image needs for the {@code @DistributedLock} path beyond what Spring's AOT
 * engine finds by itself. The annotated methods are registered through {@code @Reflective} on the
 * annotation; the Lua scripts by lock-core's own native-image metadata.
 */
class DistributedLockRuntimeHints implements RuntimeHintsRegistrar {

    /** The SpEL root object of lock keys (#root.methodName, #root.args...): its getters are called reflectively. */
    static final String KEY_ROOT = "dev.distlock.spring.aop.LockKeyResolver$Root";

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        // distlock.* is bound by the advisor itself (before most beans exist), not only as a bean.
        BindableRuntimeHintsRegistrar.forTypes(DistributedLockProperties.class).registerHints(hints, classLoader);
        hints.reflection().registerType(TypeReference.of(KEY_ROOT), MemberCategory.INVOKE_PUBLIC_METHODS);
    }
}
