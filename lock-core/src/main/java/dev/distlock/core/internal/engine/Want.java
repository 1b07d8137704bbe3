package dev.distlock.core.internal.engine;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What one acquisition asks for, as a value.
 *
 * @param waitTime how long to wait; {@code null} waits for ever
 * @param lease a fixed lease, or {@code null} for the watchdog lease
 * @param interruptible whether an interrupt ends the wait ({@code lockInterruptibly}, {@code tryLock})
 */
public record Want(@Nullable Duration waitTime, @Nullable Duration lease, boolean interruptible) {}
