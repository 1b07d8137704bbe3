/**
 * RedLock: one lock over several independent Redis masters, granted by a majority, on top of the
 * per-node engine. Internal: not exported, not part of the API.
 */
@NullMarked
package dev.distlock.core.internal.redlock;

import org.jspecify.annotations.NullMarked;
