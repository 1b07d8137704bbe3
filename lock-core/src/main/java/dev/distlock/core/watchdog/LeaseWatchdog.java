package dev.distlock.core.watchdog;

import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews every watchdog lease of one client from a single scheduler thread: every third of the
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

    private final ScheduledExecutorService scheduler;
    private final Supplier<Collection<? extends Lease>> leases;

    public LeaseWatchdog(String clientId, Duration lease, Supplier<Collection<? extends Lease>> leases) {
        this.leases = leases;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "distlock-watchdog-" + clientId.substring(0, 8));
            t.setDaemon(true);
            return t;
        });
        long period = Math.max(1, lease.toMillis() / 3);
        scheduler.scheduleWithFixedDelay(this::tick, period, period, TimeUnit.MILLISECONDS);
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
        scheduler.shutdownNow();
    }
}
