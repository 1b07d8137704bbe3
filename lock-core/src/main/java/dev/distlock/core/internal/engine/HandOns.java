package dev.distlock.core.internal.engine;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.lease.LeaseWatchdog;
import dev.distlock.core.internal.redis.RedisCalls;
import dev.distlock.core.internal.support.Events;
import org.jspecify.annotations.Nullable;

/**
 * Lock cohorting at a last release: passes the grant behind the hold to the next thread or handle of
 * this client that waits for it, without a round trip to Redis, while the grant may still be passed on
 * (see {@link #passedOn}). The grant stays the same in Redis; the next owner gets the next fencing token
 * of the grant's reserved block.
 */
final class HandOns {

    private final RedisNode node;
    private final RedisCalls calls;
    private final HoldTable holds;
    private final Events events;
    /** How long after a grant in Redis it may still pass between local owners; negative: never. */
    private final long handOffWindowNanos;
    /** Tokens left in a block when the next one is asked for (see {@link TokenRefill}). */
    private final int refillAt;

    HandOns(RedisNode node, RedisCalls calls, HoldTable holds, Events events, LockClientOptions options) {
        this.node = node;
        this.calls = calls;
        this.holds = holds;
        this.events = events;
        this.handOffWindowNanos =
                options.localHandOffs() == 0 ? -1 : options.localHandOffWindow().toNanos();
        this.refillAt = (options.localHandOffs() + 1) / 2;
    }

    /**
     * Passes the grant behind {@code hold}, being released for the last time, to the next local owner at
     * its gate, or down the line of a fair lock's cohort; whether it did (the hold is then released).
     */
    boolean passedOn(Hold hold) {
        return handedOn(hold) || handedDownTheLine(hold);
    }

    /**
     * Lock cohorting: passes the grant behind {@code hold} (being released for the last time) to the
     * next thread or handle waiting at its local gate, without a round trip, when the grant may still be
     * passed on: a watchdog lease well within its validity, a fencing token left in its reserved block,
     * and within the hand-off window of its grant in Redis. Returns whether it did; the hold is released.
     */
    private boolean handedOn(Hold hold) {
        Gate gate = hold.gate;
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
     * line of this client's waiters that queued right behind its first holder ({@link GrantOffers}),
     * without a round trip. No time window: everyone in the line queued before anyone behind it.
     */
    private boolean handedDownTheLine(Hold hold) {
        FairCohort cohort = hold.cohort;
        long now = System.nanoTime();
        if (cohort == null || !mayPassOn(hold, now)) {
            return false;
        }
        LocalGates.Baton baton = nextBaton(hold);
        if (baton == null || !node.offers.handOn(baton, cohort)) {
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
        return hold.watchdog()
                && hold.validUntilNanos - now >= leftToPassOn(hold.lease(), hold.shortGrant)
                && hold.lostReason() == null;
    }

    /**
     * How much validity a grant must have left to pass to another local owner: half its lease, so that one
     * whose renewals fail stops being passed on long before it ends. A grant whose TTL was cut short when it
     * was made (a grant carried in a wake-up message, at most {@code RedisNode.MESSAGE_GRANT_MS}) never had
     * that much: until its first renewal it passes on while it has a watchdog round (a third of the lease in
     * {@link dev.distlock.core.internal.lease.LeaseWatchdog#SLICES} rounds) and the least to take up such a
     * grant left, so that the next owner's watchdog, which finds it due at once, renews it in time (the
     * grant stays so marked after that renewal: by then it has a whole lease left anyway).
     */
    static long leftToPassOn(Lease lease, boolean shortGrant) {
        return shortGrant ? lease.nanos() / 3 / LeaseWatchdog.SLICES + Grants.SHORT_TTL_MIN_NANOS : lease.nanos() / 2;
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
                refill,
                hold.shortGrant);
    }
}
