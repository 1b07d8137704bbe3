/**
 * Small helpers every wing uses: duration arithmetic, future plumbing, listener events. Internal:
 * not exported, not part of the API.
 */
@NullMarked
package dev.distlock.core.internal.support;

import org.jspecify.annotations.NullMarked;
