package dev.distlock.spring.execution;

import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;

/**
 * The caller's thread-local context through Micrometer's context propagation: every
 * {@code ThreadLocalAccessor} of the global {@code ContextRegistry} (the current observation, Spring
 * Security's context, the MDC when registered). Restoring it also clears on the invoking thread what
 * the caller did not have, so nothing of an earlier call's context stays behind there. Loaded only when
 * {@code io.micrometer:context-propagation} is on the classpath (see {@link Invoker}).
 */
final class CallerContext {

    private static final ContextSnapshotFactory SNAPSHOTS =
            ContextSnapshotFactory.builder().clearMissing(true).build();

    private CallerContext() {}

    /** The calling thread's context, now. */
    static ContextSnapshot capture() {
        return SNAPSHOTS.captureAll();
    }
}
