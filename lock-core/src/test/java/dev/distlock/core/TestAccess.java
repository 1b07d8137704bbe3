package dev.distlock.core;

import dev.distlock.core.internal.engine.LockKind;
import org.jspecify.annotations.Nullable;

/**
 * The package-private hooks of the API's classes that tests use, for the test helpers of
 * {@code dev.distlock.core.testing}, which live outside this package.
 */
public final class TestAccess {

    private TestAccess() {}

    /** {@code client}'s lock of {@code kind} (kinds with other timings than the API's). */
    public static RedisLock getLock(LockClient client, LockKind kind, String key, @Nullable String name) {
        return client.getLock(kind, key, name);
    }
}
