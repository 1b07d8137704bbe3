/**
 * Small helpers every wing uses: duration arithmetic, future plumbing, listener events, the values the
 * client options hold. Internal: not exported, not part of the API.
 */
@NullMarked
package dev.distlock.core.internal.support;

import org.jspecify.annotations.NullMarked;
