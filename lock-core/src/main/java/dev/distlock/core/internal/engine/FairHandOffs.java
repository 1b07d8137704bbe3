package dev.distlock.core.internal.engine;

import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.WakeupHub;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Fair-lock grants this client hands to its own waiters in-process. When a release grants the lock in
 * Redis to the head of the queue and the head is a waiter of this client, the reply names it, together
 * with the waiters of this client queued right behind it (its {@link Cohort}); the grant is offered to
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
public final class FairHandOffs {

    /**
     * The waiters of this client queued right behind a grant's first holder, in queue order. It travels
     * with the grant; only the grant's current holder reads or advances it.
     */
    public static final class Cohort {
        public static final Cohort NONE = new Cohort(new String[0], new String[0]);

        private final String[] owners;
        private final String[] grantIds;
        /** How many of them the grant was offered to so far, whether they took it or had left. */
        private int next;

        private Cohort(String[] owners, String[] grantIds) {
            this.owners = owners;
            this.grantIds = grantIds;
        }

        /** The (owner, grant id) pairs of a release script's reply from index {@code from} on. */
        static Cohort of(List<Object> reply, int from) {
            int n = (reply.size() - from) / 2;
            if (n <= 0) {
                return NONE;
            }
            String[] owners = new String[n];
            String[] grantIds = new String[n];
            for (int i = 0; i < n; i++) {
                owners[i] = (String) reply.get(from + 2 * i);
                grantIds[i] = (String) reply.get(from + 2 * i + 1);
            }
            return new Cohort(owners, grantIds);
        }

        int size() {
            return owners.length;
        }

        /** The waiters the grant was offered to, "owner grant-id ...", for the release script; "" for none. */
        String served() {
            if (next == 0) {
                return "";
            }
            StringBuilder s = new StringBuilder();
            for (int i = 0; i < next; i++) {
                s.append(i == 0 ? "" : " ").append(owners[i]).append(' ').append(grantIds[i]);
            }
            return s.toString();
        }
    }

    /**
     * A grant offered to one waiting request: {@code baton} says what it holds (for a grant Redis made to
     * that very request, {@code direct}, its own owner and grant id), {@code cohort} who comes after it;
     * {@code shortTtl}: a grant from a wake-up message whose TTL in Redis is shorter than its lease (the
     * waiter's place in the queue bounded it), which must be renewed soon to last its lease.
     */
    record Offer(LocalGates.Baton baton, Cohort cohort, boolean direct, boolean shortTtl) {}

    /**
     * The latest attempt of a request that Redis answered "busy": when it was sent, and the lock's fencing
     * counter it saw.
     */
    private record Busy(long sentNanos, long fence) {}

    /** The place where one waiting request of one owner is offered a grant. */
    static final class Slot {
        final String channel;
        final String grantId;
        final Lease lease;
        final LockKind kind;
        final LockKeys keys;
        /** {@code null} while waiting, then an {@link Offer}, or {@link #CLOSED} once taken or left. */
        private final AtomicReference<@Nullable Object> state = new AtomicReference<>();
        /** {@code null} until an attempt was answered "busy"; see {@link FairHandOffs#fromMessage}. */
        private volatile @Nullable Busy busy;

        private Slot(String channel, String grantId, Lease lease, LockKind kind, LockKeys keys) {
            this.channel = channel;
            this.grantId = grantId;
            this.lease = lease;
            this.kind = kind;
            this.keys = keys;
        }

        /** An attempt sent at {@code sentNanos} was answered "busy", having seen the fencing counter at {@code fence}. */
        void busy(long sentNanos, long fence) {
            busy = new Busy(sentNanos, fence);
        }
    }

    private static final Object CLOSED = new Object();

    /** Waiting requests by their wait channel (a fair waiter's channel names the lock and the owner). */
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

    private final WakeupHub hub;
    /** This client's holds: a request may have taken up its grant by its own attempt (see {@link #granted}). */
    private final HoldTable holds;

    /**
     * @param fromMessages whether waiters take grants that wake-up messages carry ({@link #fromMessage});
     *     when not, a grant message only wakes its waiter, whose next attempt takes the grant up
     */
    FairHandOffs(WakeupHub hub, HoldTable holds, boolean fromMessages) {
        this.hub = hub;
        this.holds = holds;
        if (fromMessages) {
            hub.receiveGrants(this::fromMessage);
        }
    }

    /** Makes the slot of a request about to try a fair lock, replacing an earlier one of the same owner. */
    Slot expect(String channel, String grantId, Lease lease, LockKind kind, LockKeys keys) {
        Slot slot = new Slot(channel, grantId, lease, kind, keys);
        slots.put(channel, slot);
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
    boolean fromMessage(String channel, long token, String grantId, long ttlMs) {
        Slot slot = slots.get(channel);
        Busy busy = slot == null ? null : slot.busy;
        if (busy == null || !slot.grantId.equals(grantId) || token <= busy.fence()) {
            return false;
        }
        long validUntil = busy.sentNanos() + TimeUnit.MILLISECONDS.toNanos(ttlMs);
        LocalGates.Baton baton = new LocalGates.Baton(
                slot.kind,
                slot.keys,
                owner(slot),
                grantId,
                token,
                token,
                slot.lease,
                validUntil,
                busy.sentNanos(),
                null);
        return offer(slot, new Offer(baton, Cohort.NONE, true, ttlMs < slot.lease.millis()));
    }

    /** The owner id of {@code slot}'s request: its wait channel is the lock's waiter prefix plus that id. */
    private static String owner(Slot slot) {
        return slot.channel.substring(slot.keys.waiterChannelPrefix().length());
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
        slots.remove(slot.channel, slot);
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
            LockKind kind, LockKeys keys, String owner, String grantId, long token, long sentNanos, Cohort cohort) {
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
                null);
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
    boolean handOn(LocalGates.Baton baton, Cohort cohort) {
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
        hub.wakeLocal(slot.channel, false);
        return true;
    }
}
