package dev.distlock.core.internal.engine;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.WakeupHub;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Grants a release made in Redis to a waiting request of this client, offered to that request in-process:
 * a fair lock's (the head of its queue) and, from a wake-up message, a reentrant lock's (the waiting request
 * another client's release found recorded in the lock). The rest of this describes the fair lock's own
 * case. When a release grants the lock in
 * Redis to the head of the queue and the head is a waiter of this client, the reply names it, together
 * with the waiters of this client queued right behind it (its {@link FairCohort}); the grant is offered to
 * the head here, with no wake-up message and no second script. Each holder of the grant then passes it
 * down that line when it releases, in queue order and without a round trip (lock cohorting that keeps
 * arrival order: nobody in the line was overtaken, as all of them queued before anyone behind them).
 * The holder that finds nobody left to pass it to releases it in Redis, naming the waiters it served so
 * they leave the queue.
 *
 * <p>Every waiting request has a {@link Slot}, made before its first attempt, so a grant made after that
 * attempt always finds it. An offer and the waiter's leaving are decided by one compare-and-set: a
 * grant either reaches a waiter that takes it, or is passed on (a line's grant) or given back (a grant
 * Redis made), never lost.
 */
public final class GrantOffers {

    /**
     * A grant offered to one waiting request: {@code baton} says what it holds (for a grant Redis made to
     * that very request, {@code direct}, its own owner and grant id), {@code cohort} who comes after it;
     * {@code shortTtl}: a grant from a wake-up message whose TTL in Redis is shorter than its lease (the
     * waiter's place in the queue bounded it), which must be renewed soon to last its lease.
     */
    record Offer(LocalGates.Baton baton, FairCohort cohort, boolean direct, boolean shortTtl) {}

    /**
     * The latest attempt of a request that Redis answered "busy": when it was sent, and the lock's fencing
     * counter it saw.
     */
    private record Busy(long sentNanos, long fence) {}

    /** The place where one waiting request of one owner is offered a grant. */
    static final class Slot {
        final String channel;
        /**
         * How a grant message names the request: its grant id on a waiter's own channel (fair locks); on a
         * channel all waiters share, where grant ids of different clients may be equal, "grant id@owner".
         */
        final String messageId;
        /** Where the slot is found: its channel when that is its waiter's own, else the channel and {@link #messageId}. */
        final String key;

        final String owner;
        final String grantId;
        final Lease lease;
        final LockKind kind;
        final LockKeys keys;
        /** How many fencing tokens a grant made to the request reserves (its own and those it hands on locally). */
        final int tokenBlock;
        /** {@code null} while waiting, then an {@link Offer}, or {@link #CLOSED} once taken or left. */
        private final AtomicReference<@Nullable Object> state = new AtomicReference<>();
        /** {@code null} until an attempt was answered "busy"; see {@link GrantOffers#fromMessage}. */
        private volatile @Nullable Busy busy;

        private Slot(
                String channel,
                String owner,
                String grantId,
                Lease lease,
                LockKind kind,
                LockKeys keys,
                int tokenBlock) {
            this.channel = channel;
            this.messageId = kind.waitsOnOwnChannel() ? grantId : grantId + '@' + owner;
            this.key = kind.waitsOnOwnChannel() ? channel : shared(channel, messageId);
            this.owner = owner;
            this.grantId = grantId;
            this.lease = lease;
            this.kind = kind;
            this.keys = keys;
            this.tokenBlock = tokenBlock;
        }

        /** An attempt sent at {@code sentNanos} was answered "busy", having seen the fencing counter at {@code fence}. */
        void busy(long sentNanos, long fence) {
            busy = new Busy(sentNanos, fence);
        }
    }

    private static final Object CLOSED = new Object();

    /**
     * The deprecated system property that, when {@code false}, turns {@link LockClientOptions#grantsInMessages()}
     * off whatever the options say (for the benchmark's fair "before" across processes, which sets it as its
     * clients start).
     */
    static final String GRANTS_FROM_MESSAGES = "distlock.fair-message-grants";

    /** Whether a waiter of a client with {@code options} holds the lock on a grant message, without an attempt of its own. */
    static boolean fromMessages(LockClientOptions options) {
        boolean off = "false"
                .equalsIgnoreCase(System.getProperty(GRANTS_FROM_MESSAGES, "").trim());
        return options.grantsInMessages() && !off;
    }

    /**
     * Waiting requests by their {@link Slot#key}: a fair waiter's channel names the lock and the owner; a
     * reentrant lock's channel is shared by all its waiters, so its grant id is added.
     */
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

    private static String shared(String channel, String messageId) {
        return channel + ' ' + messageId;
    }

    private final WakeupHub hub;
    /** This client's holds: a request may have taken up its grant by its own attempt (see {@link #granted}). */
    private final HoldTable holds;

    /**
     * @param fromMessages whether waiters take grants that wake-up messages carry ({@link #fromMessage});
     *     when not, a grant message only wakes its waiter, whose next attempt takes the grant up
     */
    GrantOffers(WakeupHub hub, HoldTable holds, boolean fromMessages) {
        this.hub = hub;
        this.holds = holds;
        if (fromMessages) {
            hub.receiveGrants(this::fromMessage);
        }
    }

    /**
     * Makes the slot of a request about to try a lock whose release grants it to a waiter ({@link
     * LockKind#grantedByRelease}), replacing an earlier one of the same owner (fair locks).
     */
    Slot expect(
            String channel, String owner, String grantId, Lease lease, LockKind kind, LockKeys keys, int tokenBlock) {
        Slot slot = new Slot(channel, owner, grantId, lease, kind, keys, tokenBlock);
        slots.put(slot.key, slot);
        return slot;
    }

    /**
     * Offers the waiter of {@code channel} the grant a release in another client made to it and published
     * on that channel: the waiter holds the lock on receipt, without a script of its own. False (the message
     * is a plain wake-up: the next attempt takes the grant up, as a waiter that missed the message does)
     * when the channel's request waits under another grant id, has not been answered "busy" yet, or was
     * answered "busy" by an attempt that ran after this grant was made (its fencing counter had reached the
     * grant's token): the grant is then older than that attempt, and has ended since.
     *
     * <p>The lease clock. Redis started the grant's TTL when the release ran, at some time S before this
     * message arrived; how long before, the waiter cannot know (the message may have queued on a busy
     * connection, or this JVM paused). So the clock starts when the request's latest "busy" attempt was
     * sent: that attempt ran in Redis before S (an attempt that ran after it would have been granted, and the
     * token check above rules out one after the grant ended), and it was sent before it ran. The hold is
     * valid until that send time plus the TTL, never past S plus the TTL: the same rule as for an attempt's
     * own grant, timed from before its request was sent. At worst it is shorter by a recheck interval, which
     * the renewal made soon after taking it (for a TTL shorter than the lease) makes good.
     *
     * <p>Taken once: a message that comes twice finds the slot offered or closed. A request that has left
     * has no slot; its leave gives the grant back (it runs after the release that made the grant, or that
     * release found it gone from the queue and granted it to nobody).
     */
    boolean fromMessage(String channel, long token, String messageId, long ttlMs) {
        Slot slot = slots.get(channel);
        if (slot == null) {
            slot = slots.get(shared(channel, messageId));
        }
        Busy busy = slot == null ? null : slot.busy;
        if (busy == null || !slot.messageId.equals(messageId) || token <= busy.fence()) {
            return false;
        }
        long validUntil = busy.sentNanos() + TimeUnit.MILLISECONDS.toNanos(ttlMs);
        // The hand-off window of a reentrant grant (how long it may pass between this client's callers while
        // others wait) runs from now: it bounds a turn, not the lease, whose clock is the one above.
        LocalGates.Baton baton = new LocalGates.Baton(
                slot.kind,
                slot.keys,
                slot.owner,
                slot.grantId,
                token,
                token + slot.tokenBlock - 1,
                slot.lease,
                validUntil,
                System.nanoTime(),
                null,
                ttlMs < slot.lease.millis());
        return offer(slot, new Offer(baton, FairCohort.NONE, true, ttlMs < slot.lease.millis()));
    }

    /** The grant offered to {@code slot}'s request, now its to hold; {@code null} when none came. */
    @Nullable
    Offer take(Slot slot) {
        Object s = slot.state.get();
        return s instanceof Offer offer && slot.state.compareAndSet(offer, CLOSED) ? offer : null;
    }

    /** Whether a grant was offered to {@code slot}'s request and not yet taken. */
    boolean offered(Slot slot) {
        return slot.state.get() instanceof Offer;
    }

    /**
     * Ends {@code slot}'s wait: no offer reaches it afterwards. Returns an offer that came and was not
     * taken, which the caller must pass on.
     */
    @Nullable
    Offer withdraw(Slot slot) {
        Object s = slot.state.getAndSet(CLOSED);
        slots.remove(slot.key, slot);
        return s instanceof Offer offer ? offer : null;
    }

    /**
     * Offers the grant a release by this client made in Redis to {@code owner}'s request {@code grantId}
     * (sent at {@code sentNanos}, from when its lease runs). True too when that request took the grant up
     * itself: its own attempt, run after the release, found it, and this client read that reply first.
     * That happens when the releasing thread is held up between sending the release and registering for
     * its reply, so that the reply's handling runs on that thread, late. False when the request no longer
     * waits and does not hold the grant: the caller gives it back.
     */
    boolean granted(
            LockKind kind, LockKeys keys, String owner, String grantId, long token, long sentNanos, FairCohort cohort) {
        Slot slot = slots.get(kind.waitChannel(keys, owner));
        if (slot == null || !slot.grantId.equals(grantId)) {
            return tookUp(kind, keys, owner, grantId);
        }
        LocalGates.Baton baton = new LocalGates.Baton(
                kind,
                keys,
                owner,
                grantId,
                token,
                token + cohort.size(),
                slot.lease,
                sentNanos + slot.lease.nanos(),
                sentNanos,
                null,
                false);
        return offer(slot, new Offer(baton, cohort, true, false)) || tookUp(kind, keys, owner, grantId);
    }

    /**
     * Whether {@code owner} holds grant {@code grantId} here. A request records the hold its own attempt
     * got before it leaves its slot, so a request that took up its grant is always found in one place or
     * the other; once it released the hold, that release let the grant go.
     */
    private boolean tookUp(LockKind kind, LockKeys keys, String owner, String grantId) {
        Hold hold = holds.get(kind, keys, owner);
        return hold != null && hold.grantId.equals(grantId);
    }

    /**
     * Passes {@code baton} to the next waiter of {@code cohort} that still waits, passing over those that
     * left. Stops, false, at one that asked for another lease (it gets the lock in Redis, in its turn),
     * or when none is left.
     */
    boolean handOn(LocalGates.Baton baton, FairCohort cohort) {
        while (cohort.next < cohort.size()) {
            Slot slot = slots.get(baton.kind().waitChannel(baton.keys(), cohort.owners[cohort.next]));
            boolean waits = slot != null && slot.grantId.equals(cohort.grantIds[cohort.next]);
            if (waits && !slot.lease.equals(baton.lease())) {
                return false;
            }
            cohort.next++;
            if (waits && offer(slot, new Offer(baton, cohort, false, false))) {
                return true;
            }
        }
        return false;
    }

    private boolean offer(Slot slot, Offer offer) {
        if (!slot.state.compareAndSet(null, offer)) {
            return false;
        }
        // A shared channel may have other waiters of this client (read locks aside, only ever one at a time
        // per lock in practice: the gate): all wake, and the one offered the grant takes it.
        hub.wakeLocal(slot.channel, !slot.kind.waitsOnOwnChannel());
        return true;
    }
}
