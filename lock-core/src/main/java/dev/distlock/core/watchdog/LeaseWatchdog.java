package dev.distlock.core.watchdog;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews every watchdog lease of one client from the client's single timer thread. Each lease is
 * renewed once a third of its length has passed since its last renewal, and the renewals of one
 * period are spread over {@value #SLICES} rounds, each sending at most about twice its even share:
 * holding 100,000 locks does not put 100,000 renewals at once in front of the client's other commands
 * on the connection renewals share. A lease with half of it or less left unconfirmed is renewed in any case,
 * over the share: when rounds come late (a busy machine), spreading must never cost a lease. No
 * thread or timer per lock. Internal: not part of the API.
 */
public final class LeaseWatchdog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

    /** Rounds per renewal period. */
    static final int SLICES = 20;

    /** Renewals a round may always send, however few locks are held. */
    private static final int MIN_PER_ROUND = 256;

    /** What the watchdog needs from a hold. */
    public interface Lease {
        /**
         * Called on every round; returns whether a renewal should be sent now: a renewal period has passed
         * since the last one was sent and the hold is still held.
         */
        boolean dueForRenewal(long nowNanos, long periodNanos);

        /** Whether its renewal must not wait for a later round: half its lease or less is left unconfirmed. */
        boolean urgent(long nowNanos);

        /** Sends the renewal and handles its reply. */
        void renew(long sentAtNanos);
    }

    private final Supplier<Collection<? extends Lease>> leases;
    private final long periodNanos;
    private final ScheduledFuture<?> rounds;

    /**
     * @param scheduler the client's one timer thread, which this watchdog shares with its other timers
     */
    public LeaseWatchdog(
            ScheduledExecutorService scheduler, Duration lease, Supplier<Collection<? extends Lease>> leases) {
        this.leases = leases;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, lease.toMillis() / 3));
        long round = Math.max(TimeUnit.MILLISECONDS.toNanos(1), periodNanos / SLICES);
        this.rounds = scheduler.scheduleWithFixedDelay(this::tick, round, round, TimeUnit.NANOSECONDS);
    }

    /** The time between two renewals of one lease. */
    public long periodNanos() {
        return periodNanos;
    }

    private void tick() {
        try {
            long now = System.nanoTime();
            Collection<? extends Lease> all = leases.get();
            int budget = Math.max(MIN_PER_ROUND, 2 * ((all.size() + SLICES - 1) / SLICES));
            for (Lease lease : all) {
                // Over the share, only what cannot wait: the rest next round.
                if (lease.dueForRenewal(now, periodNanos) && (budget > 0 || lease.urgent(now))) {
                    lease.renew(now);
                    budget--;
                }
            }
        } catch (RuntimeException e) {
            // never let one bad round cancel the schedule
            log.error("Lock watchdog round failed; retrying next round", e);
        }
    }

    @Override
    public void close() {
        rounds.cancel(false);
    }
}
