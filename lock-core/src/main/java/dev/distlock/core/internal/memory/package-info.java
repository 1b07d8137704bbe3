/**
 * Local mode's Redis: {@link dev.distlock.core.internal.memory.MemoryRedis} runs the lock scripts
 * in-process over an in-memory keyspace, so that one JVM without Redis runs the same lock engine.
 * Needs LuaJ on the class path (an optional dependency). Internal: not exported, not part of the API.
 */
@NullMarked
package dev.distlock.core.internal.memory;

import org.jspecify.annotations.NullMarked;
