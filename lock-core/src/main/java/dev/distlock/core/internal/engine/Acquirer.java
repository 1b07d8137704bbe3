package dev.distlock.core.internal.engine;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.RedisCalls;
import dev.distlock.core.internal.redis.WaitChannel;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blocking acquisition: tries in Redis, then sleeps on the lock's wake-up channel (each sleep
 * bounded by the holder's TTL) until the deadline. Every attempt of one call carries the same grant id,
 * so any of them that Redis ran twice, or ran although its reply never came, is one grant that the next
 * attempt or the give-back recognises. Its steps are {@link AcquireSteps} and {@link Grants}, which
 * {@link AsyncAcquisition} shares.
 */
final class Acquirer {

    private static final Logger log = LoggerFactory.getLogger(Acquirer.class);

    private final AcquireSteps steps;
    private final Grants grants;
    private final RedisNode node;
    private final RedisCalls calls;
    private final HoldTable holds;
    private final LockClientOptions options;

    Acquirer(
            AcquireSteps steps,
            Grants grants,
            RedisNode node,
            RedisCalls calls,
            HoldTable holds,
            LockClientOptions options) {
        this.steps = steps;
        this.grants = grants;
        this.node = node;
        this.calls = calls;
        this.holds = holds;
        this.options = options;
    }

    /** Queues at the local gate first, so that one thread of this JVM at a time tries in Redis. */
    @Nullable
    Hold throughGate(AcquireRequest request, long deadline) throws InterruptedException {
        Gate gate = holds.join(request.kind(), request.keys());
        LocalGates.Pass pass = LocalGates.Pass.TIMEOUT;
        Hold hold = null;
        try {
            LocalGates.Entry entry = gate.enter(deadline, request.interruptible(), request.lease());
            pass = entry.pass();
            if (pass == LocalGates.Pass.TIMEOUT) {
                steps.timedOut(request);
                return null;
            }
            if (pass == LocalGates.Pass.HANDED_ON) {
                pass = LocalGates.Pass.PERMIT; // the permit came with it
                hold = grants.handedOn(request, entry.baton());
                if (hold != null) {
                    return hold;
                }
            }
            hold = acquire(request, deadline);
            return hold;
        } finally {
            if (hold != null && hold.gate == null) {
                holds.enterGate(hold, gate, pass == LocalGates.Pass.PERMIT);
            } else {
                if (pass == LocalGates.Pass.PERMIT) {
                    gate.exit();
                }
                holds.leave(request.kind(), request.keys(), gate);
            }
        }
    }

    /** Acquires in Redis for {@code request.owner()} until {@code deadline}; the hold, or {@code null} when the wait ran out. */
    @Nullable
    Hold acquire(AcquireRequest request, long deadline) throws InterruptedException {
        LockKind kind = request.kind();
        LockKeys keys = request.keys();
        Hold current = holds.get(kind, keys, request.owner());
        boolean reentry = current != null && current.isLive(request.startNanos());
        ScriptArgs.Acquire args = steps.argsFor(request, reentry ? current : null);
        boolean acquired = false;
        // Joined before the first try, a channel kept open since the last wait on it misses no wake-up after it.
        WaitChannel channel = reentry ? null : steps.joinIfOpen(request);
        GrantOffers.Slot slot = reentry ? null : grants.expectOffer(request, args);
        int lateGrants = 0;
        try {
            Grant grant = attempt(request, args, deadline);
            while (true) {
                Grants.answered(slot, grant);
                if (grant.granted()) {
                    Hold hold = grants.granted(request, grant);
                    if (hold != null) {
                        acquired = true;
                        return hold;
                    }
                    Grants.requireUsableLease(request, grant, ++lateGrants);
                    if (args.held() == 0) {
                        // The next try gets a grant id of its own: the give-back names the old one, and if
                        // it is retried late it must not free a grant made by the next try.
                        args = steps.afresh(request);
                        slot = grants.renewOffer(request, args, slot);
                    }
                    grant = new Grant(
                            false,
                            0,
                            0,
                            args.grantId(),
                            grant.sentNanos()); // arrived after its lease: look again at once
                }
                Hold offered = grants.takeOffer(request, slot);
                if (offered != null) {
                    acquired = true;
                    return offered;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    steps.timedOut(request);
                    return null;
                }
                if (channel == null) {
                    channel = steps.join(request);
                    awaitSubscription(channel, deadline, keys, request.interruptible());
                } else {
                    // The holder's TTL bounds the sleep: a lost wake-up or a crashed holder cannot stall us.
                    // PTTL 0 is the lease's last millisecond (expiry publishes nothing): look again right after it.
                    // Only a key without TTL (-1) falls back to a whole watchdog lease.
                    long ttlMs = grant.ttlMs() >= 0 ? Math.max(1, grant.ttlMs()) : steps.watchdogLeaseMs();
                    channel.await(Math.min(TimeUnit.MILLISECONDS.toNanos(ttlMs), remaining), request.interruptible());
                }
                if (request.interruptible() && Thread.interrupted()) {
                    throw new InterruptedException("Interrupted while waiting for lock '"
                            + request.info().key() + "'");
                }
                offered = grants.takeOffer(request, slot);
                if (offered != null) {
                    acquired = true;
                    return offered;
                }
                grant = attempt(request, args, deadline);
            }
        } catch (LockUnavailableException e) {
            steps.giveBackUnheld(request, args);
            throw e;
        } finally {
            grants.withdrawOffer(slot);
            if (channel != null) {
                steps.leave(channel);
            }
            if (!acquired) {
                gaveUp(request, args, channel != null);
            }
        }
    }

    private void awaitSubscription(WaitChannel channel, long deadline, LockKeys keys, boolean interruptible)
            throws InterruptedException {
        boolean interrupted = false;
        long until = Math.min(deadline - System.nanoTime(), calls.operationTimeoutNanos()) + System.nanoTime();
        try {
            while (true) {
                try {
                    channel.subscribed().get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return;
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true; // lock() is not interruptible: keep waiting, restore the flag after
                } catch (TimeoutException | ExecutionException e) {
                    // Waiting still works without it: every sleep is bounded by the holder's TTL.
                    log.debug("Subscription to {} not confirmed: {}", keys.channel(), e.toString());
                    return;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * One script run, bounded by the caller's deadline (at least the port's least step) and
     * by the operation timeout; silence and refusals for now are ridden out as {@link RideOut} says.
     */
    private Grant attempt(AcquireRequest request, ScriptArgs.Acquire args, long deadline) throws InterruptedException {
        while (true) {
            try {
                return attemptOnce(request, args, deadline);
            } catch (LockUnavailableException e) {
                RideOut.orThrow(e, request, deadline, () -> steps.giveBackUnheld(request, args));
            }
        }
    }

    private Grant attemptOnce(AcquireRequest request, ScriptArgs.Acquire args, long deadline) {
        long sentAt = System.nanoTime();
        Grant grant = Grant.of(
                calls.call(
                        steps.acquireCall(request, args, deadline, sentAt),
                        calls.stepDeadline(deadline),
                        "acquiring",
                        request.keys()),
                args.grantId(),
                sentAt);
        if (grant.granted() && grant.count() == 1 && options.replicaAcks() > 0) {
            confirmReplicated(request, args, deadline);
        }
        return grant;
    }

    /** WAIT for the configured replicas after a new grant; give the grant back when too few acknowledge. */
    private void confirmReplicated(AcquireRequest request, ScriptArgs.Acquire args, long deadline) {
        LockKeys keys = request.keys();
        long acked = calls.call(
                () -> node.waitForReplicas(
                        options.replicaAcks(), options.replicaAckTimeout().toMillis()),
                calls.stepDeadline(deadline) + options.replicaAckTimeout().toNanos(),
                "waiting for replicas of",
                keys);
        if (acked < options.replicaAcks()) {
            RedisNode.ReleaseCall call = node.releaseCall();
            calls.call(
                    () -> node.release(request.kind(), keys, args.owner(), args.grantId(), 1, 0, false, "", call),
                    calls.operationDeadline(),
                    "giving back",
                    keys);
            throw steps.replicasMissing(keys, acked);
        }
    }

    /** Leaves a fair queue (or whatever the kind does on giving up), waiting briefly: Redis may not answer. */
    private void gaveUp(AcquireRequest request, ScriptArgs.Acquire args, boolean waited) {
        if (!request.kind().leavesWhenGivingUp()) {
            // Only a record of waiting to take back: nobody waits for it, so neither does the caller.
            steps.gaveUpAsync(request, args, waited);
            return;
        }
        if (calls.isClosed()) {
            return;
        }
        try {
            calls.call(
                    () -> node.gaveUp(
                            request.kind(),
                            request.keys(),
                            request.owner(),
                            args.grantId(),
                            AcquireSteps.leaveGrantId(args)),
                    calls.stepDeadline(System.nanoTime()),
                    "leaving the queue of",
                    request.keys());
        } catch (LockException e) {
            // The acquire ends anyway and its own outcome matters more. The queue place would expire with its
            // deadline, but a grant made to the waiter meanwhile only with its lease: keep trying in the background.
            log.warn(
                    "Could not leave the queue of lock {} yet; trying again in the background: {}",
                    request.keys().lock(),
                    e.toString());
            steps.gaveUpAsync(request, args, waited);
        }
    }
}
