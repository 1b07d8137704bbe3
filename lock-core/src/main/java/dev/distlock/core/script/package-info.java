/**
 * The Lua scripts (loaded once, run with EVALSHA, reloaded after NOSCRIPT) and their runner.
 * Internal: not part of the API.
 */
@NullMarked
package dev.distlock.core.script;

import org.jspecify.annotations.NullMarked;
