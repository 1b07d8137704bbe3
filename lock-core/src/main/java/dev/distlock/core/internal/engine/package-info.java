/**
 * The lock engine of one Redis deployment, or of local mode's in-process store: acquisition (blocking
 * and async), release, the table of holds, local gates and cohorting, fair hand-offs, and the lock
 * kinds (reentrant, fair, read/write) with the script arguments each kind sends.
 *
 * <h2>How the wings fit</h2>
 *
 * <p>lock-core's public API is {@code dev.distlock.core} (and {@code dev.distlock.core.reactor});
 * {@code module-info.java} exports only those. Everything else lives in the internal wings below,
 * whose imports run one way, lowest first:
 *
 * <ol>
 *   <li>{@code internal.support}: duration arithmetic, future plumbing, listener events;
 *   <li>{@code internal.redis} (and {@code .script}): {@code RedisPort}, the narrow port through which
 *       the engine reaches a Redis (scripts, channels, key probes, connection events), served by
 *       Lettuce connections; the calls that run the Lua scripts with bounded waits and safe re-sends;
 *       the key layout; pub/sub wake-ups;
 *   <li>{@code internal.memory}: the same port served in-process for local mode, by a store that runs
 *       the same scripts (tested against Redis call by call);
 *   <li>{@code internal.lease}: the lease clock of a hold, the keeper that renews watchdog leases
 *       and reports their loss, the one renewal timer per client;
 *   <li>{@code internal.lock}: the lock objects users hold and the {@code LockPort} they call;
 *   <li>{@code internal.engine} (this package): implements that port on one {@code RedisPort};
 *   <li>{@code internal.redlock}: implements it over several masters, on top of per-node engines.
 * </ol>
 *
 * <p>The API's value types, listener and exceptions are used by every wing; the facades
 * {@code LockClient} and {@code RedLockClient} sit on top and wire the wings together.
 *
 * <h2>How a lock is taken and given back</h2>
 *
 * <ol>
 *   <li>{@link dev.distlock.core.internal.engine.LockEngine} checks the call (re-entry, a closed
 *       client, a pending interrupt) and, for exclusive kinds, queues it at the lock's local
 *       {@link dev.distlock.core.internal.engine.Gate}: one caller per JVM tries in Redis, the others
 *       wait in arrival order without a round trip each.
 *   <li>{@link dev.distlock.core.internal.engine.Acquirer} (blocking) or
 *       {@link dev.distlock.core.internal.engine.AsyncAcquisition} (a handle, no thread) tries: one
 *       script run under one grant id for the whole wait, so a run Redis made twice, or made with its
 *       reply lost, is one grant. Both go through the same
 *       {@link dev.distlock.core.internal.engine.AcquireSteps} (arguments, the try and its decoded
 *       {@link dev.distlock.core.internal.engine.Grant}, the wake-up channel, giving back and leaving)
 *       and {@link dev.distlock.core.internal.engine.Grants} (a grant recorded as a hold, watched by the
 *       lease keeper, reported once).
 *   <li>Busy: the caller sleeps on the lock's channel, each sleep bounded by the holder's TTL, and is
 *       woken by the release's message; a fair lock's waiter, and a reentrant lock's recorded waiter of another
 *       client, is granted the lock by the release itself, and holds it on the message.
 *       Every wait is bounded by its deadline, and a Redis that does not answer is ridden out only
 *       within it ({@link dev.distlock.core.internal.engine.RideOut}).
 *   <li>{@link dev.distlock.core.internal.engine.Releaser} counts the hold down and runs the release
 *       script (told the hold count, so running it twice releases once). A last release with callers
 *       of this JVM waiting may pass the grant on in-process instead
 *       ({@link dev.distlock.core.internal.engine.HandOns}: lock cohorting, bounded by a window and a
 *       block of fencing tokens).
 * </ol>
 *
 * <p>docs/how-it-works.md describes the keys, scripts, watchdog and cohorting for users.
 *
 * <p>Internal: not exported, not part of the API.
 */
@NullMarked
package dev.distlock.core.internal.engine;

import org.jspecify.annotations.NullMarked;
