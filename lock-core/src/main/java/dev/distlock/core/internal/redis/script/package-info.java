/**
 * The Lua scripts (resources next to these classes, loaded once, run with EVALSHA, reloaded after
 * NOSCRIPT) and their runner. Internal: not exported, not part of the API.
 */
@NullMarked
package dev.distlock.core.internal.redis.script;

import org.jspecify.annotations.NullMarked;
