/**
 * Running a call inside its lock, shared by {@code @DistributedLock} and {@code LockTemplate}: waiting,
 * metrics, fencing tokens, release and lease-loss handling. Internal to the starter.
 */
@NullMarked
package dev.distlock.spring.execution;

import org.jspecify.annotations.NullMarked;
