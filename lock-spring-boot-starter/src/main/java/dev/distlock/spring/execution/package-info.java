/**
 * Running a call inside its lock, shared by {@code @DistributedLock} and {@code LockTemplate}: waiting,
 * metrics, fencing tokens, release and lease-loss handling. The three call styles stand side by side
 * behind {@link dev.distlock.spring.execution.LockedCalls}, which picks by the method's
 * {@link dev.distlock.spring.execution.CallStyle}: blocking ({@code LockExecutor}),
 * {@code CompletionStage} ({@code StageCall}, {@code AsyncHold}), Reactor and Kotlin
 * ({@code ReactiveCall}, {@code KotlinFlows}). Internal to the starter.
 */
@NullMarked
package dev.distlock.spring.execution;

import org.jspecify.annotations.NullMarked;
