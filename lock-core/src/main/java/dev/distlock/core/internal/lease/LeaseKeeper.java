package dev.distlock.core.internal.lease;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.support.Events;
import java.util.AbstractCollection;
import java.util.Collection;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the leases of one client's holds, Redis and RedLock alike: the watchdog renews watchdog leases (up
 * to {@link HoldLimit}), a timer reports a fixed lease that runs out while held, and every loss is reported
 * once (WARN, listeners, interrupt when chosen). How a renewal reaches Redis is the {@link Renewer}'s business.
 */
public final class LeaseKeeper<H extends LeaseState> implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    /** Sends one renewal of a watchdog lease; a failed future means Redis did not answer. */
    public interface Renewer<H> {
        CompletableFuture<Renewal> renew(H hold, long leaseMs);
    }

    /**
     * A renewal's answer.
     *
     * @param outcome renewed, lost (the lock is gone or held by another grant), or failed (no answer)
     * @param validNanos when renewed: how long the hold is valid from the renewal's send time
     * @param detail what was found, for logs and loss reasons
     */
    public record Renewal(RenewalOutcome outcome, long validNanos, String detail) {
        public static Renewal renewed(long validNanos) {
            return new Renewal(RenewalOutcome.RENEWED, validNanos, "renewed");
        }

        public static Renewal lost(String detail) {
            return new Renewal(RenewalOutcome.LOST, 0, detail);
        }

        public static Renewal failed(String detail) {
            return new Renewal(RenewalOutcome.ERROR, 0, detail);
        }
    }

    private final String what;
    private final ScheduledExecutorService timers;
    private final Events events;
    private final boolean interruptOnLoss;
    private final long watchdogLeaseMs;
    private final Renewer<H> renewer;
    private final LeaseWatchdog watchdog;
    private final Supplier<Collection<H>> holds;
    private final HoldLimit limit;

    /**
     * @param what how logs name a lock of this kind ({@code Lock}, {@code RedLock})
     * @param holds the holds to keep, read on every watchdog round
     */
    public LeaseKeeper(
            String what,
            ScheduledExecutorService timers,
            LockClientOptions options,
            Events events,
            Supplier<Collection<H>> holds,
            Renewer<H> renewer) {
        this.what = what;
        this.timers = timers;
        this.events = events;
        this.interruptOnLoss = options.interruptOnLeaseLost();
        this.watchdogLeaseMs = options.watchdogLease().toMillis();
        this.renewer = renewer;
        this.holds = holds;
        this.limit = new HoldLimit(options, events);
        this.watchdog = new LeaseWatchdog(timers, options.watchdogLease(), () -> watched(holds.get()));
    }

    /**
     * {@code holds} as the watchdog sees them, wrapped one at a time as a round walks them: no list of
     * 100,000 wrappers alive through a round for a garbage collection to copy.
     */
    private Collection<LeaseWatchdog.Lease> watched(Collection<H> holds) {
        return new AbstractCollection<>() {
            @Override
            public Iterator<LeaseWatchdog.Lease> iterator() {
                return holds.stream().<LeaseWatchdog.Lease>map(Watched::new).iterator(); // lazy: one at a time
            }

            @Override
            public int size() {
                return holds.size();
            }
        };
    }

    public long watchdogLeaseMs() {
        return watchdogLeaseMs;
    }

    /** Starts watching a fixed lease (again, after a re-entry changed its end); watchdog leases need nothing. */
    public void watch(H hold) {
        if (hold.watchdog() || hold.released || hold.lostReason() != null) {
            return;
        }
        stop(hold);
        try {
            hold.leaseTimer = timers.schedule(
                    () -> {
                        if (!hold.released && hold.lostReason() == null) {
                            if (System.nanoTime() - hold.validUntilNanos < 0) {
                                watch(hold); // re-entered with a later lease meanwhile
                            } else {
                                lost(hold, "its " + hold.lease().describe() + " ran out while it was still held");
                            }
                        }
                    },
                    Math.max(0, hold.validUntilNanos - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("Client closing: lease of {} '{}' not watched", what, hold.info.key());
        }
    }

    /** Stops the fixed-lease timer of a hold that ends. */
    public void stop(H hold) {
        Future<?> timer = hold.leaseTimer;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    /** Reports a hold lost, once: WARN, listeners, and an interrupt of its thread when the client asked for it. */
    public void lost(LeaseState hold, String reason) {
        if (hold.markLost(reason)) {
            log.warn(
                    "{} '{}' was lost while held (owner {}, fencing token {}): {}",
                    what,
                    hold.info.key(),
                    hold.owner,
                    hold.token,
                    reason);
            events.leaseLost(hold.info, reason);
            Thread owner = hold.thread;
            if (interruptOnLoss && owner != null && !hold.released) {
                owner.interrupt(); // the holder asked to be stopped rather than run on unprotected
            }
        }
    }

    private void renewed(H hold, long sentAt, Renewal renewal) {
        if (hold.released) {
            return; // the reply raced with unlock: the renew scripts never revive a released lock
        }
        // Not one sent before a re-entry set a lease of its own: Redis may have run that first, so the TTL it
        // set is no longer the lock's (see LeaseState.leaseSetNanos).
        if (renewal.outcome() == RenewalOutcome.RENEWED && sentAt - hold.leaseSetNanos >= 0) {
            hold.validUntilNanos = sentAt + renewal.validNanos();
        }
        events.renewal(hold.info, renewal.outcome());
        switch (renewal.outcome()) {
            case RENEWED -> {}
            case LOST -> lost(hold, renewal.detail());
            default -> {
                if (System.nanoTime() - hold.validUntilNanos > 0) {
                    lost(
                            hold,
                            "no renewal was confirmed before the "
                                    + hold.lease().describe() + " ran out (" + renewal.detail() + ")");
                } else {
                    log.warn(
                            "Renewing {} '{}' failed, retrying while the lease lasts: {}",
                            what,
                            hold.info.key(),
                            renewal.detail());
                    renewIn(hold, Math.max(1, Math.min(200, watchdogLeaseMs / 10)));
                }
            }
        }
    }

    /**
     * Renews a watchdog lease in {@code delayMs}, not a period on: after a failed renewal (two lost replies must
     * not cost the lease), or at once for a grant whose TTL in Redis is shorter than its lease (a fair grant
     * taken from a wake-up message).
     */
    public void renewIn(H hold, long delayMs) {
        try {
            timers.schedule(
                    () -> {
                        long now = System.nanoTime();
                        Watched watched = new Watched(hold);
                        if (watched.dueForRenewal(now, 0)) {
                            watched.claim(now);
                            watched.renew();
                        }
                    },
                    delayMs,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("Client closing: renewal of {} '{}' not retried", what, hold.info.key());
        }
    }

    /** Adapts a hold to the watchdog: renews watchdog leases; fixed leases have their own timer. */
    private final class Watched implements LeaseWatchdog.Lease {
        private final H hold;
        private long sentAt;

        Watched(H hold) {
            this.hold = hold;
        }

        @Override
        public boolean dueForRenewal(long now, long periodNanos) {
            if (hold.released || hold.lostReason() != null || !hold.watchdog()) {
                return false;
            }
            if (limit.reached(hold, now)) {
                lost(hold, HoldLimit.reason(hold));
                return false;
            }
            if (now - hold.renewalSentNanos < periodNanos) {
                return false; // renewed (or granted, or a renewal sent) less than a period ago
            }
            if (now - hold.validUntilNanos > 0) {
                // No renewal confirmed for a whole lease: Redis may have let the key expire. Do not wait
                // for a command time-out to say so.
                lost(
                        hold,
                        "no renewal was confirmed within the " + hold.lease().describe()
                                + " (Redis unreachable or stalled)");
                return false;
            }
            return true;
        }

        @Override
        public boolean urgent(long now) {
            return hold.validUntilNanos - now < hold.lease().nanos() / 2;
        }

        @Override
        public void claim(long sentAtNanos) {
            sentAt = sentAtNanos;
            hold.renewalSentNanos = sentAtNanos;
        }

        @Override
        public CompletableFuture<?> renew() {
            if (hold.released || hold.lostReason() != null) {
                return CompletableFuture.completedFuture(null); // ended while its renewal waited to be sent
            }
            long claimed = sentAt; // the lease is reckoned from the claim, before the send: never too long
            CompletableFuture<Renewal> renewal;
            try {
                renewal = renewer.renew(hold, watchdogLeaseMs);
            } catch (RuntimeException e) {
                renewal = CompletableFuture.failedFuture(e);
            }
            return renewal.whenComplete((result, error) -> renewed(
                    hold,
                    claimed,
                    error == null ? result : Renewal.failed(String.valueOf(RedisFailures.unwrap(error)))));
        }
    }

    /**
     * Stops the watchdog. Its holds still held lose their renewals, so each is reported lost now rather
     * than found expired later; a fixed lease is not renewed anyway and lasts as long as its holder was told.
     */
    @Override
    public void close() {
        watchdog.close();
        for (H hold : holds.get()) {
            if (hold.watchdog() && !hold.released) {
                lost(
                        hold,
                        "its client was closed while it was held: the "
                                + hold.lease().describe()
                                + " is no longer renewed, so another owner may take the lock once it ends");
            }
        }
    }
}
