package dev.distlock.core.internal.engine;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.internal.lease.LeaseKeeper;
import dev.distlock.core.internal.redis.RedisCalls;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.support.Events;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Releases holds: counts a hold down, runs the release script (told how many holds the owner has, so
 * running it twice releases once), and handles its answer: the last release frees the local gate and
 * wakes a local waiter; a hold found gone is reported lost; a release Redis does not confirm is
 * retried in the background until the lease ends.
 */
final class Releaser {

    private final RedisNode node;
    private final RedisCalls calls;
    private final HoldTable holds;
    private final LeaseKeeper<Hold> keeper;
    private final Events events;
    /** How long after a grant in Redis it may still pass between local owners; negative: never. */
    private final long handOffWindowNanos;
    /** Tokens left in a block when the next one is asked for (see {@link TokenRefill}). */
    private final int refillAt;

    Releaser(
            RedisNode node,
            RedisCalls calls,
            HoldTable holds,
            LeaseKeeper<Hold> keeper,
            Events events,
            LockClientOptions options) {
        this.handOffWindowNanos =
                options.localHandOffs() == 0 ? -1 : options.localHandOffWindow().toNanos();
        this.refillAt = (options.localHandOffs() + 1) / 2;
        this.node = node;
        this.calls = calls;
        this.holds = holds;
        this.keeper = keeper;
        this.events = events;
    }

    /**
     * Releases one hold count. The script is told how many holds the owner has, so running it twice
     * (a reply lost) releases once.
     *
     * @throws LockLeaseExpiredException when the hold was lost or its lease ran out
     * @throws LockUnavailableException when Redis did not confirm the release within the operation
     *         timeout; a last release is then retried in the background until the lease ends
     */
    void release(Hold hold, Duration holdAtLeast) {
        int held = hold.count();
        boolean last = beginRelease(hold);
        long keepMs = keepMs(hold, last, holdAtLeast);
        if (last && keepMs == 0 && (handedOn(hold) || handedDownTheLine(hold))) {
            return;
        }
        long result;
        try {
            // On the caller's thread (events too): the starter tells its own calls apart by thread.
            RedisNode.ReleaseCall call = node.releaseCall();
            result =
                    calls.call(() -> send(hold, held, keepMs, call), calls.operationDeadline(), "releasing", hold.keys);
        } catch (LockException e) {
            throw released(hold, last, 0, e);
        }
        RuntimeException failure = released(hold, last, result, null);
        if (failure != null) {
            throw failure;
        }
    }

    /** {@link #release} without blocking: the future fails with the exceptions {@code release} throws. */
    CompletableFuture<Void> releaseAsync(Hold hold, Duration holdAtLeast) {
        int held = hold.count();
        boolean last;
        try {
            last = beginRelease(hold);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        long keepMs = keepMs(hold, last, holdAtLeast);
        if (last && keepMs == 0 && (handedOn(hold) || handedDownTheLine(hold))) {
            return CompletableFuture.completedFuture(null);
        }
        RedisNode.ReleaseCall call = node.releaseCall();
        return calls.callAsync(() -> send(hold, held, keepMs, call), calls.operationDeadline(), "releasing", hold.keys)
                .handle((result, error) -> {
                    RuntimeException failure = released(hold, last, result == null ? 0 : result, error);
                    if (failure != null) {
                        throw failure;
                    }
                    return null;
                });
    }

    /**
     * Lock cohorting: passes the grant behind {@code hold} (being released for the last time) to the
     * next thread or handle waiting at its local gate, without a round trip, when the grant may still be
     * passed on: a watchdog lease well within its validity, a fencing token left in its reserved block,
     * and within the hand-off window of its grant in Redis. Returns whether it did; the hold is released.
     */
    private boolean handedOn(Hold hold) {
        LocalGates.Gate gate = hold.gate;
        long now = System.nanoTime();
        if (gate == null
                || !hold.ownsPermit
                || !hold.kind.handsOnLocally()
                || now - TokenRefill.windowStart(hold.redisGrantNanos, hold.refill) > handOffWindowNanos
                || !mayPassOn(hold, now)) {
            return false;
        }
        LocalGates.Baton baton = nextBaton(hold);
        if (baton == null) {
            return false; // its tokens are used up, and no further block came
        }
        hold.gate = null; // the permit goes with the baton
        if (!gate.handOn(baton)) { // nobody waiting (one look under the gate's lock)
            hold.gate = gate;
            return false;
        }
        holds.leave(hold.kind, hold.keys, gate);
        events.release(hold.info, hold.heldFor(now));
        refillSoon(baton, now);
        return true;
    }

    /**
     * Asks Redis in the background for the next block of fencing tokens of the grant {@code baton} passes
     * on, once few are left in its block and its hand-off window has time left ({@link TokenRefill}).
     */
    private void refillSoon(LocalGates.Baton baton, long now) {
        TokenRefill refill = baton.refill();
        if (refill == null
                || baton.tokenLimit() - baton.token() > refillAt
                || now - TokenRefill.windowStart(baton.redisGrantNanos(), refill) > handOffWindowNanos
                || !refill.ask()) {
            return;
        }
        calls.callAsync(
                        () -> node.refill(baton),
                        calls.operationDeadline(),
                        "reserving fencing tokens of",
                        baton.keys())
                .whenComplete((reply, error) -> {
                    if (reply == null) {
                        refill.answered(0, 0, now); // the cohort ends with this block: the usual release in Redis
                    } else {
                        refill.answered((Long) reply.get(0), (Long) reply.get(1), now);
                    }
                });
    }

    /**
     * Fair lock cohorting: passes the grant behind {@code hold} to the next waiter still waiting in the
     * line of this client's waiters that queued right behind its first holder ({@link FairHandOffs}),
     * without a round trip. No time window: everyone in the line queued before anyone behind it.
     */
    private boolean handedDownTheLine(Hold hold) {
        FairHandOffs.Cohort cohort = hold.cohort;
        long now = System.nanoTime();
        if (cohort == null || !mayPassOn(hold, now)) {
            return false;
        }
        LocalGates.Baton baton = nextBaton(hold);
        if (baton == null || !node.fair.handOn(baton, cohort)) {
            return false;
        }
        events.release(hold.info, hold.heldFor(now));
        return true;
    }

    /**
     * Whether the grant behind {@code hold} may pass to another local owner: a watchdog lease well within
     * its validity (the next holder's watchdog renews it). It also needs a fencing token ({@link #nextBaton}).
     */
    private static boolean mayPassOn(Hold hold, long now) {
        return hold.watchdog() && hold.validUntilNanos - now >= hold.lease().nanos() / 2 && hold.lostReason() == null;
    }

    /**
     * The grant behind {@code hold} for the next local owner: the same grant, the next fencing token of its
     * block, or the first of the next block when that came ({@link TokenRefill}); {@code null} when its
     * tokens are used up.
     */
    private static LocalGates.@Nullable Baton nextBaton(Hold hold) {
        long token = hold.token + 1;
        long limit = hold.tokenLimit;
        if (hold.token >= hold.tokenLimit) {
            long[] block = hold.refill == null ? null : hold.refill.take();
            if (block == null) {
                return null;
            }
            token = block[0];
            limit = block[1];
        }
        TokenRefill refill = hold.refill != null || !hold.kind.handsOnLocally() ? hold.refill : new TokenRefill();
        return new LocalGates.Baton(
                hold.kind,
                hold.keys,
                hold.redisOwner,
                hold.grantId,
                token,
                limit,
                hold.lease(),
                hold.validUntilNanos,
                hold.redisGrantNanos,
                refill);
    }

    /** Runs the release script for {@code held} holds of {@code hold}, keeping the lock {@code keepMs} after it. */
    private CompletableFuture<Long> send(Hold hold, int held, long keepMs, RedisNode.ReleaseCall call) {
        return node.release(
                hold.kind,
                hold.keys,
                hold.redisOwner,
                hold.grantId,
                held,
                keepMs,
                hold.watchdog(),
                hold.served(),
                call);
    }

    /**
     * How long a last release leaves the lock taken so that it stays taken {@code holdAtLeast} after its
     * grant (rounded up, so never shorter); 0 for a release that is not the last or comes later.
     */
    private static long keepMs(Hold hold, boolean last, Duration holdAtLeast) {
        if (!last || holdAtLeast.isZero()) {
            return 0;
        }
        long leftNanos = holdAtLeast.toNanos() - hold.heldFor(System.nanoTime()).toNanos();
        return leftNanos <= 0 ? 0 : (leftNanos + 999_999) / 1_000_000;
    }

    /**
     * Counts one hold down before its release is sent; returns whether it was the last. A hold already
     * lost (or a closed client) ends here, with the exception the release throws.
     */
    private boolean beginRelease(Hold hold) {
        String lost = hold.lostReason();
        boolean last = hold.exit() <= 0;
        if (last) {
            // Before the script runs: a renewal reply that finds the lock gone must not count as a loss.
            holds.remove(hold);
            keeper.stop(hold);
        }
        if (lost != null || calls.isClosed()) {
            if (last) {
                holds.exitGate(hold);
                // A stale release cannot hurt a later hold of the same owner: it names this grant only.
                node.giveBack(hold);
            }
            if (lost == null) {
                throw calls.closedException();
            }
            // A fixed lease is not renewed: lost means it ran out; a watchdog hold is lost by Redis or by a close.
            throw new LockLeaseExpiredException(
                    hold.info.key(),
                    lost,
                    calls.isClosed()
                            ? LockLeaseExpiredException.Loss.CLIENT_CLOSED
                            : hold.watchdog()
                                    ? LockLeaseExpiredException.Loss.KEY_LOST
                                    : LockLeaseExpiredException.Loss.LEASE_RAN_OUT);
        }
        return last;
    }

    /** Handles the release script's answer (1 released, 0 still held, -1 not held) or {@code error}; the failure to throw, or null. */
    private @Nullable RuntimeException released(Hold hold, boolean last, long result, @Nullable Throwable error) {
        boolean ended = last;
        try {
            if (error != null) {
                RuntimeException e = RedisFailures.asLockException(error);
                node.wakeLocal(hold.kind, hold.keys); // the release may have happened: let a waiter check
                if (last && e instanceof LockUnavailableException) {
                    node.giveBack(hold);
                    return new LockUnavailableException(
                            e.getMessage() + "; the release is retried in the background until the lease"
                                    + " ends, when the lock frees itself anyway",
                            e.getCause());
                }
                return e;
            }
            if (result == 1) {
                holds.remove(hold);
                ended = true;
                holds.exitGate(hold);
                node.wakeLocal(hold.kind, hold.keys);
                events.release(hold.info, hold.heldFor(System.nanoTime()));
            } else if (result < 0) {
                holds.remove(hold);
                keeper.stop(hold);
                ended = true;
                // A fixed lease gone from Redis before it ran out here was lost by Redis, not by its length.
                boolean ranOut = !hold.watchdog() && System.nanoTime() - hold.validUntilNanos >= 0;
                String reason = ranOut
                        ? "its " + hold.lease().describe() + " ran out before unlock"
                        : "it was no longer in Redis when unlocking, before its "
                                + hold.lease().describe() + " ended";
                keeper.lost(hold, reason);
                return new LockLeaseExpiredException(
                        hold.info.key(),
                        hold.lostReason(),
                        ranOut
                                ? LockLeaseExpiredException.Loss.LEASE_RAN_OUT
                                : LockLeaseExpiredException.Loss.KEY_LOST);
            }
            return null;
        } finally {
            if (ended) {
                holds.exitGate(hold);
            }
        }
    }
}
