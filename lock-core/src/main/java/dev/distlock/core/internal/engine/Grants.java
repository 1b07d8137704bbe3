package dev.distlock.core.internal.engine;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.lease.LeaseKeeper;
import dev.distlock.core.internal.redis.RedisCalls;
import dev.distlock.core.internal.support.Events;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * What an acquisition does with a grant, blocking ({@link Acquirer}) or not ({@link AsyncAcquisition}):
 * records it as a hold (the hold table, the lease keeper, the acquire event), gives back one that came
 * after its lease or that nobody takes, takes up a grant handed on at the local gate, and takes up (or
 * passes on) a fair grant offered in-process by {@link GrantOffers}.
 */
final class Grants {

    private final RedisNode node;
    private final RedisCalls calls;
    private final HoldTable holds;
    private final LeaseKeeper<Hold> keeper;
    private final Events events;
    private final LockClientOptions options;

    Grants(
            RedisNode node,
            RedisCalls calls,
            HoldTable holds,
            LeaseKeeper<Hold> keeper,
            Events events,
            LockClientOptions options) {
        this.node = node;
        this.calls = calls;
        this.holds = holds;
        this.keeper = keeper;
        this.events = events;
        this.options = options;
    }

    /**
     * Records a grant. Returns {@code null} for a grant whose reply came after its lease had already run
     * out in Redis (counted from when the request was sent): it is given back, and the caller looks again.
     */
    @Nullable
    Hold granted(AcquireRequest request, Grant grant) {
        long now = System.nanoTime();
        Lease lease = request.lease();
        Hold existing = holds.get(request.kind(), request.keys(), request.owner());
        if (grant.count() > 1
                && existing != null
                && existing.grantId.equals(grant.grantId())
                && !existing.released
                && existing.lostReason() == null) {
            if (!grantedAnew(existing, grant)) {
                existing.reentered(lease.millis(), grant.sentNanos());
                keeper.watch(existing);
                return existing;
            }
            // a new grant, whatever count it carries: the old hold is superseded below and reported lost
            grant = new Grant(true, grant.token(), 1, grant.grantId(), grant.sentNanos());
        }
        if (now - (grant.sentNanos() + lease.nanos()) >= 0) {
            node.giveBack(
                    request.kind(),
                    request.keys(),
                    request.owner(),
                    grant.grantId(),
                    now + calls.operationTimeoutNanos());
            return null;
        }
        Hold hold = new Hold(
                request.kind(),
                request.info(),
                request.keys(),
                request.owner(),
                request.thread(),
                grant,
                lease,
                options.localHandOffs() + 1);
        return recorded(request, hold);
    }

    /**
     * Whether a fair re-entry's {@code grant} is in truth a new grant under the hold's grant id: the hold's
     * lease ran out in Redis unnoticed (renewals failing), its re-entry found the lock taken and queued under
     * the grant id it carries, and a release then granted the lock to that place anew, with a new fencing
     * token, which the re-entry took up. A re-entry proper answers the token of the grant the hold stands on.
     * Only fair locks grant to a queued place; a fair hold passed down from another owner's grant has a token
     * of that grant's block, so only a hold on its own grant can tell.
     */
    private static boolean grantedAnew(Hold existing, Grant grant) {
        return existing.kind instanceof FairKind
                && existing.redisOwner.equals(existing.owner)
                && grant.token() != existing.token;
    }

    /** Grants of one wait that may arrive after their lease before the lease is called too short for this network. */
    static final int LATE_GRANTS_TOLERATED = 3;

    /**
     * Called when {@code grant} reached this client after its lease had ended ({@link #granted} gave it
     * back), the {@code late}th time in this wait: once that happened {@link #LATE_GRANTS_TOLERATED}
     * times to a fixed lease, it is shorter than a round trip to Redis and the lock could never be used,
     * so the caller is told instead of being made to try for ever. A pause of this JVM makes a single
     * late grant, which is tried again.
     *
     * @throws IllegalArgumentException when the lease is too short to use
     */
    static void requireUsableLease(AcquireRequest request, Grant grant, int late) {
        Lease lease = request.lease();
        if (lease.watchdog() || late < LATE_GRANTS_TOLERATED) {
            return;
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grant.sentNanos());
        throw new IllegalArgumentException("lease of lock '" + request.info().key() + "' (" + lease.millis()
                + " ms) had ended before Redis's grant reached this client " + late
                + " times in this wait (the last reply took " + tookMs + " ms): use a lease well above the round trip"
                + " to Redis, or leave it out to use the watchdog");
    }

    /** Records a new hold of {@code request}'s owner: the hold table, the lease keeper, the acquire event. */
    private Hold recorded(AcquireRequest request, Hold hold) {
        Hold superseded = holds.put(hold);
        if (superseded != null) {
            keeper.stop(superseded);
            keeper.lost(superseded, "its lease had already run out in Redis when its owner locked again");
        }
        keeper.watch(hold);
        events.acquire(request.info(), AcquireOutcome.ACQUIRED, request.startNanos());
        return hold;
    }

    /**
     * The hold a local hand-off gives {@code request}'s owner, without a round trip; {@code null} when
     * the baton's lease is too close to its end to pass on (it is then given back in Redis, and the
     * caller, which holds the gate's permit, acquires in Redis as usual).
     */
    @Nullable
    Hold handedOn(AcquireRequest request, LocalGates.Baton baton) {
        long now = System.nanoTime();
        if (baton.validUntilNanos() - now < HandOns.leftToPassOn(baton.lease(), baton.shortGrant())) {
            giveBack(baton);
            return null;
        }
        Hold hold = new Hold(baton, request.info(), request.owner(), request.thread(), now);
        return recorded(request, hold);
    }

    /**
     * A hold whose acquisition was cancelled after Redis granted it (and its acquire event fired): forget
     * it, give it back, and report its release, so that listeners see every grant released once.
     */
    void abandon(Hold hold) {
        holds.remove(hold);
        keeper.stop(hold);
        node.giveBack(hold);
        holds.exitGate(hold); // after the give-back: the next local waiter's try goes after it
        events.release(hold.info, hold.heldFor(System.nanoTime()));
    }

    /**
     * The slot where a new request for a lock that a release grants to a waiter ({@link
     * LockKind#grantedByRelease}) is offered a grant in-process ({@link GrantOffers}), made before its
     * first try; {@code null} for other kinds.
     */
    GrantOffers.@Nullable Slot expectOffer(AcquireRequest request, ScriptArgs.Acquire args) {
        LockKind kind = request.kind();
        if (!kind.grantedByRelease()) {
            return null;
        }
        return node.offers.expect(
                kind.waitChannel(request.keys(), request.owner()),
                request.owner(),
                args.grantId(),
                request.lease(),
                kind,
                request.keys(),
                kind.handsOnLocally() ? args.tokenBlock() : 1);
    }

    /** The slot of a request that took a new grant id ({@link #afresh}), in place of {@code old}. */
    GrantOffers.@Nullable Slot renewOffer(
            AcquireRequest request, ScriptArgs.Acquire args, GrantOffers.@Nullable Slot old) {
        if (old == null) {
            return null;
        }
        withdrawOffer(old);
        return expectOffer(request, args);
    }

    /**
     * The hold a fair grant offered in-process gives {@code request}'s owner; {@code null} when none was
     * offered, or when the grant is too close to its lease's end to use: a line's grant is then passed
     * on, and a grant Redis made to this request is taken up by its next try (which renews it).
     */
    @Nullable
    Hold takeOffer(AcquireRequest request, GrantOffers.@Nullable Slot slot) {
        GrantOffers.Offer offer = slot == null ? null : node.offers.take(slot);
        if (offer == null) {
            return null;
        }
        LocalGates.Baton baton = offer.baton();
        long now = System.nanoTime();
        if (!usable(offer, baton.validUntilNanos() - now)) {
            passOn(offer);
            return null;
        }
        Hold hold = new Hold(baton, request.info(), request.owner(), request.thread(), now);
        hold.cohort = offer.cohort();
        recorded(request, hold);
        if (offer.shortTtl()) {
            // Renewed with two thirds of it left (the watchdog's round may come first; a hold released by
            // then costs no renewal), not a watchdog period on: that may be longer than what is left.
            keeper.renewIn(hold, TimeUnit.NANOSECONDS.toMillis(baton.validUntilNanos() - now) / 3);
        }
        return hold;
    }

    /**
     * The least validity left for taking up a grant from a wake-up message whose TTL in Redis is shorter
     * than its watchdog lease: it is renewed soon, and this leaves that renewal time to land (a renewal
     * that does not, in time, reports the hold lost, as for any hold).
     */
    static final long SHORT_TTL_MIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    /**
     * Whether an offered grant with {@code leftNanos} of validity left is worth taking: half its lease, as
     * a grant handed on is; a grant whose TTL in Redis was cut short of its lease (by its waiter's queue
     * deadline) only with a watchdog lease, renewed soon, and enough left for that renewal. A fixed
     * lease is never renewed, so such a grant is taken up by the waiter's next attempt, which sets the
     * whole lease.
     */
    private static boolean usable(GrantOffers.Offer offer, long leftNanos) {
        Lease lease = offer.baton().lease();
        if (!offer.shortTtl()) {
            return leftNanos >= lease.nanos() / 2;
        }
        return lease.watchdog() && leftNanos >= Math.min(lease.nanos() / 2, SHORT_TTL_MIN_NANOS);
    }

    /**
     * Notes that {@code grant}, an attempt of {@code slot}'s request, was answered "busy": a grant message
     * for that request is timed from it (see {@link GrantOffers#fromMessage}).
     */
    static void answered(GrantOffers.@Nullable Slot slot, Grant grant) {
        if (slot != null && !grant.granted()) {
            slot.busy(grant.sentNanos(), grant.fenceSeen());
        }
    }

    /** Whether a grant was offered to {@code slot}'s request and not yet taken. */
    boolean offered(GrantOffers.Slot slot) {
        return node.offers.offered(slot);
    }

    /** Ends the wait of {@code slot}'s request; a grant offered to it and not taken is passed on. */
    void withdrawOffer(GrantOffers.@Nullable Slot slot) {
        GrantOffers.Offer offer = slot == null ? null : node.offers.withdraw(slot);
        if (offer != null) {
            passOn(offer);
        }
    }

    /**
     * Passes on a fair grant offered to a request that does not use it: a line's grant to the next in the
     * line, else back in Redis. A grant Redis made to the request itself stays: the request's leave gives
     * it back (or its next try takes it up).
     */
    private void passOn(GrantOffers.Offer offer) {
        LocalGates.Baton baton = offer.baton();
        if (offer.direct() || node.offers.handOn(baton, offer.cohort())) {
            return;
        }
        node.giveBack(
                baton.kind(),
                baton.keys(),
                baton.redisOwner(),
                baton.grantId(),
                baton.validUntilNanos(),
                offer.cohort().served());
    }

    /** Gives back in Redis a grant handed on to a caller that no longer wants it. */
    void giveBack(LocalGates.Baton baton) {
        node.giveBack(baton.kind(), baton.keys(), baton.redisOwner(), baton.grantId(), baton.validUntilNanos());
    }
}
