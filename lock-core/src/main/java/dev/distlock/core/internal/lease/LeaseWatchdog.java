package dev.distlock.core.internal.lease;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
 * over the share: when rounds come late (a busy machine), spreading must never cost a lease. At most
 * {@value #MAX_IN_FLIGHT} renewals are in flight; the rest of a round waits in a queue (urgent ones
 * first) and goes out as replies come back, so that a garbage collection during a round copies only
 * that many renewals' commands and futures (a round of 10,000 sent at once made young-generation
 * pauses of 40 ms). No thread or timer per lock. Internal: not part of the API.
 */
public final class LeaseWatchdog implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

    /** Rounds per renewal period. */
    public static final int SLICES = 20;

    /** Renewals a round may always send, however few locks are held. */
    private static final int MIN_PER_ROUND = 256;

    /**
     * Renewals sent and not yet answered, at most: enough to keep the pipe full (1,024 per round trip is
     * 100,000 renewals a second at a 10 ms round trip, ten times what 100,000 leases of 30 s need).
     */
    static final int MAX_IN_FLIGHT = 1024;

    /** What the watchdog needs from a hold. */
    public interface Lease {
        /**
         * Called on every round; returns whether a renewal should be sent now: a renewal period has passed
         * since the last one was sent and the hold is still held.
         */
        boolean dueForRenewal(long nowNanos, long periodNanos);

        /** Whether its renewal must not wait for a later round: half its lease or less is left unconfirmed. */
        boolean urgent(long nowNanos);

        /**
         * A round chose it: it counts as renewed at {@code sentAtNanos} from now on (not due again for a
         * period, and the renewed lease is reckoned from then), though the renewal may leave a little later.
         */
        void claim(long sentAtNanos);

        /** Sends the renewal claimed last; the stage completes once its reply was handled. */
        CompletionStage<?> renew();
    }

    private final Supplier<Collection<? extends Lease>> leases;
    private final long periodNanos;
    private final ScheduledFuture<?> rounds;
    /** Claimed renewals waiting for room in flight. */
    private final ArrayDeque<Lease> waiting = new ArrayDeque<>(); // guarded by this

    private int inFlight; // guarded by this

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
                    lease.claim(now);
                    send(lease, lease.urgent(now));
                    budget--;
                }
            }
        } catch (RuntimeException e) {
            // never let one bad round cancel the schedule
            log.error("Lock watchdog round failed; retrying next round", e);
        }
    }

    /** Sends a claimed renewal now if there is room in flight, else queues it (an urgent one first). */
    private void send(Lease lease, boolean urgent) {
        synchronized (this) {
            if (inFlight >= MAX_IN_FLIGHT) {
                if (urgent) {
                    waiting.addFirst(lease);
                } else {
                    waiting.addLast(lease);
                }
                return;
            }
            inFlight++;
        }
        sendFrom(lease);
    }

    /**
     * Sends {@code lease}'s renewal, and each waiting one after it as replies come back: in a loop while
     * replies are already there (a released hold answers at once), so a long queue never deepens the stack.
     */
    private void sendFrom(Lease first) {
        Lease lease = first;
        while (lease != null) {
            CompletableFuture<?> reply;
            try {
                reply = lease.renew().toCompletableFuture();
            } catch (RuntimeException e) {
                log.error("Lock renewal failed before it was sent; its lease is checked again next round", e);
                reply = CompletableFuture.completedFuture(null);
            }
            if (!reply.isDone()) {
                reply.whenComplete((result, error) -> sendFrom(nextWaiting()));
                return;
            }
            lease = nextWaiting();
        }
    }

    /** The next waiting renewal, keeping its place in flight; {@code null} (and the place freed) when none waits. */
    private synchronized Lease nextWaiting() {
        Lease next = waiting.pollFirst();
        if (next == null) {
            inFlight--;
        }
        return next;
    }

    @Override
    public void close() {
        rounds.cancel(false);
        synchronized (this) {
            waiting.clear();
        }
    }
}
