/**
 * The lock engine of one Redis deployment: acquisition (blocking and async), release, the table of
 * holds, local gates and cohorting, fair hand-offs, and the lock kinds (reentrant, fair, read/write)
 * with the script arguments each kind sends.
 *
 * <h2>How the wings fit</h2>
 *
 * <p>lock-core's public API is {@code dev.distlock.core} (and {@code dev.distlock.core.reactor});
 * {@code module-info.java} exports only those. Everything else lives in the internal wings below,
 * whose imports run one way, lowest first:
 *
 * <ol>
 *   <li>{@code internal.support}: duration arithmetic, future plumbing, listener events;
 *   <li>{@code internal.redis} (and {@code .script}): connections, the calls that run the Lua
 *       scripts with bounded waits and safe re-sends, the key layout, pub/sub wake-ups;
 *   <li>{@code internal.lease}: the lease clock of a hold, the keeper that renews watchdog leases
 *       and reports their loss, the one renewal timer per client;
 *   <li>{@code internal.lock}: the lock objects users hold and the {@code LockPort} they call;
 *   <li>{@code internal.engine} (this package): implements that port on one Redis;
 *   <li>{@code internal.redlock}: implements it over several masters, on top of per-node engines.
 * </ol>
 *
 * <p>The API's value types, listener and exceptions are used by every wing; the facades
 * {@code LockClient} and {@code RedLockClient} sit on top and wire the wings together.
 *
 * <p>Internal: not exported, not part of the API.
 */
@NullMarked
package dev.distlock.core.internal.engine;

import org.jspecify.annotations.NullMarked;
