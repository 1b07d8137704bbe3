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
 * Renews every watchdog lease of one client from the client's single timer thread: every third of the
 * lease it sends one renewal per held lock, all at once (pipelined on the shared connection), and
 * hands each reply back to its lease. No thread or timer per lock. Internal: not part of the API.
 */
public final class LeaseWatchdog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

    /** What the watchdog needs from a hold. */
    public interface Lease {
        /** Called on every tick; returns whether a renewal should be sent now. */
        boolean dueForRenewal(long nowNanos);

        /** Sends the renewal and handles its reply. */
        void renew(long sentAtNanos);
    }

    private final Supplier<Collection<? extends Lease>> leases;
    private final ScheduledFuture<?> rounds;

    /**
     * @param scheduler the client's one timer thread, which this watchdog shares with its other timers
     */
    public LeaseWatchdog(
            ScheduledExecutorService scheduler, Duration lease, Supplier<Collection<? extends Lease>> leases) {
        this.leases = leases;
        long period = Math.max(1, lease.toMillis() / 3);
        this.rounds = scheduler.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    private void tick() {
        try {
            long now = System.nanoTime();
            for (Lease lease : leases.get()) {
                if (lease.dueForRenewal(now)) {
                    lease.renew(now);
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
