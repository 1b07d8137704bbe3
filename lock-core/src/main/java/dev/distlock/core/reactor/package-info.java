/**
 * Project Reactor views of the async lock methods: {@code Mono<LockHandle>} and a {@code usingLock}
 * helper that releases on complete, error and cancel.
 */
@NullMarked
package dev.distlock.core.reactor;

import org.jspecify.annotations.NullMarked;
