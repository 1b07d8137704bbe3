package dev.distlock.core.internal.engine;

import dev.distlock.core.LockInfo;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.lease.LeaseState;
import dev.distlock.core.internal.redis.LockKeys;
import org.jspecify.annotations.Nullable;

/**
 * One owner's hold on one Redis lock, as this client knows it: the lease state plus the lock's kind,
 * keys, the grant in Redis it stands on, and its place in the local gate. A grant may pass from one
 * local owner to the next without a round trip ({@link LocalGates.Baton}); the scripts then keep
 * naming the grant's owner in Redis ({@link #redisOwner}), not the hold's.
 */
public final class Hold extends LeaseState {

    final LockKind kind;

    @Override
    public boolean capped() {
        return kind.capped();
    }

    final LockKeys keys;
    /** The owner id the grant has in Redis: this hold's owner, or the first owner of a grant handed on locally. */
    final String redisOwner;
    /**
     * When the grant in Redis was asked for (System.nanoTime): local hand-offs stop a window after it, or
     * after the last block of tokens its {@link #refill} got ({@link TokenRefill#windowStart}).
     */
    final long redisGrantNanos;
    /** The last fencing token the grant reserved; a local hand-off takes the next one up to it. */
    final long tokenLimit;
    /**
     * The further token blocks its grant may reserve while it passes between local owners, shared by
     * every hold of that grant after its first; {@code null} for a grant not handed on locally (yet).
     */
    final @Nullable TokenRefill refill;
    /** Whether its grant's TTL in Redis was cut short of its lease when made ({@link LocalGates.Baton#shortGrant}). */
    final boolean shortGrant;
    /** The local gate this hold took part in, until its last release; see {@link LocalGates}. */
    volatile Gate gate;
    /** Whether this hold owns its gate's permit (false when it went past an abandoned holder). */
    volatile boolean ownsPermit;
    /** Set when this client force-unlocked the lock under it: its loss is reported as that. */
    volatile boolean forceUnlocked;
    /**
     * A fair grant's line of this client's waiters it passes down on release ({@link GrantOffers}), or
     * {@code null}. Set before the hold is published.
     */
    @Nullable
    FairCohort cohort;

    /**
     * A hold from {@code grant}, valid for {@code lease} from when the granting request was sent; a new
     * grant reserved {@code tokenBlock} tokens from its own.
     */
    Hold(
            LockKind kind,
            LockInfo info,
            LockKeys keys,
            String owner,
            @Nullable Thread thread,
            Grant grant,
            Lease lease,
            int tokenBlock) {
        super(
                info,
                owner,
                thread,
                grant.token(),
                grant.grantId(),
                (int) grant.count(),
                lease,
                grant.sentNanos(),
                grant.sentNanos() + lease.nanos());
        this.kind = kind;
        this.keys = keys;
        this.redisOwner = owner;
        this.redisGrantNanos = grant.sentNanos();
        this.tokenLimit = grant.token() + (kind.handsOnLocally() ? tokenBlock - 1 : 0);
        this.refill = null; // made at the first local hand-off: most grants are never handed on
        this.shortGrant = false;
    }

    /** The hold {@code baton} hands to {@code owner} (on {@code thread}) now: the same grant, the next token. */
    Hold(LocalGates.Baton baton, LockInfo info, String owner, @Nullable Thread thread, long nowNanos) {
        super(info, owner, thread, baton.token(), baton.grantId(), 1, baton.lease(), nowNanos, baton.validUntilNanos());
        this.kind = baton.kind();
        this.keys = baton.keys();
        this.redisOwner = baton.redisOwner();
        this.redisGrantNanos = baton.redisGrantNanos();
        this.tokenLimit = baton.tokenLimit();
        this.refill = baton.refill();
        this.shortGrant = baton.shortGrant();
        // The grant was last renewed (or granted) a lease before it runs out: renew on that schedule.
        this.renewalSentNanos = baton.validUntilNanos() - baton.lease().nanos();
    }

    /** The waiters this hold's grant was passed down to or over, as the release script takes them. */
    String served() {
        FairCohort c = cohort;
        return c == null ? "" : c.served();
    }
}
