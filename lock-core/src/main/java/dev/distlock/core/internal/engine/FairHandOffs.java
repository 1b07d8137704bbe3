package dev.distlock.core.internal.engine;

import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.WakeupHub;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
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
     * that very request, {@code direct}, its own owner and grant id), {@code cohort} who comes after it.
     */
    record Offer(LocalGates.Baton baton, Cohort cohort, boolean direct) {}

    /** The place where one waiting request of one owner is offered a grant. */
    static final class Slot {
        final String channel;
        final String grantId;
        final Lease lease;
        /** {@code null} while waiting, then an {@link Offer}, or {@link #CLOSED} once taken or left. */
        private final AtomicReference<@Nullable Object> state = new AtomicReference<>();

        private Slot(String channel, String grantId, Lease lease) {
            this.channel = channel;
            this.grantId = grantId;
            this.lease = lease;
        }
    }

    private static final Object CLOSED = new Object();

    /** Waiting requests by their wait channel (a fair waiter's channel names the lock and the owner). */
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();

    private final WakeupHub hub;
    /** This client's holds: a request may have taken up its grant by its own attempt (see {@link #granted}). */
    private final HoldTable holds;

    FairHandOffs(WakeupHub hub, HoldTable holds) {
        this.hub = hub;
        this.holds = holds;
    }

    /** Makes the slot of a request about to try a fair lock, replacing an earlier one of the same owner. */
    Slot expect(String channel, String grantId, Lease lease) {
        Slot slot = new Slot(channel, grantId, lease);
        slots.put(channel, slot);
        return slot;
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
        return offer(slot, new Offer(baton, cohort, true)) || tookUp(kind, keys, owner, grantId);
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
            if (waits && offer(slot, new Offer(baton, cohort, false))) {
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
