package dev.distlock.core.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.testsupport.BehaviourTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The watchdog's schedule, without Redis: renewals of many leases taken at once are spread over the
 * renewal period instead of sent in one burst, and every lease is still renewed in time.
 */
@BehaviourTest
class LeaseWatchdogSpreadTest {

    /** A lease due a period after its last claim, never urgent, counting its renewals. */
    private abstract static class CountedLease implements LeaseWatchdog.Lease {
        volatile long lastSent = System.nanoTime();
        final AtomicInteger renewals = new AtomicInteger();

        @Override
        public boolean dueForRenewal(long now, long periodNanos) {
            return now - lastSent >= periodNanos;
        }

        @Override
        public boolean urgent(long nowNanos) {
            return false; // renewed well within its lease here
        }

        @Override
        public void claim(long sentAt) {
            lastSent = sentAt;
        }
    }

    /** A lease renewed at once (as a reply would confirm it), recording in which round. */
    private static final class FakeLease extends CountedLease {
        final Map<Long, AtomicInteger> perRound;

        FakeLease(Map<Long, AtomicInteger> perRound) {
            this.perRound = perRound;
        }

        @Override
        public void claim(long sentAt) {
            super.claim(sentAt);
            perRound.computeIfAbsent(sentAt, k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public CompletionStage<?> renew() {
            renewals.incrementAndGet();
            return CompletableFuture.completedFuture(null);
        }
    }

    /** A lease whose renewal is answered 2 ms later on {@code replies}, counting what is in flight. */
    private static final class SlowLease extends CountedLease {
        final AtomicInteger inFlight;
        final AtomicInteger mostInFlight;
        final ScheduledExecutorService replies;

        SlowLease(AtomicInteger inFlight, AtomicInteger mostInFlight, ScheduledExecutorService replies) {
            this.inFlight = inFlight;
            this.mostInFlight = mostInFlight;
            this.replies = replies;
        }

        @Override
        public CompletionStage<?> renew() {
            mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            CompletableFuture<Void> reply = new CompletableFuture<>();
            replies.schedule(
                    () -> {
                        inFlight.decrementAndGet();
                        renewals.incrementAndGet();
                        reply.complete(null);
                    },
                    2,
                    TimeUnit.MILLISECONDS);
            return reply;
        }
    }

    /** A lease of 1.5 s: a renewal period of 500 ms, a round every 25 ms. */
    private static final Duration LEASE = Duration.ofMillis(1_500);

    /** Runs a watchdog over {@code leases} for two lease lengths (six renewal periods), then closes it. */
    private static void runForTwoLeases(List<? extends LeaseWatchdog.Lease> leases) throws InterruptedException {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        LeaseWatchdog watchdog = new LeaseWatchdog(timer, LEASE, () -> Collections.unmodifiableList(leases));
        try {
            Thread.sleep(LEASE.toMillis() * 2);
        } finally {
            watchdog.close();
            timer.shutdownNow();
        }
    }

    @Test
    void aRoundLargerThanTheInFlightLimitWaitsForRepliesAndIsStillRenewedInTime() throws Exception {
        int n = 20_000; // a round's share (2,000) is over the limit
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        ScheduledExecutorService replies = Executors.newScheduledThreadPool(2);
        List<SlowLease> leases = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            leases.add(new SlowLease(inFlight, mostInFlight, replies));
        }
        try {
            runForTwoLeases(leases);
        } finally {
            replies.shutdown();
            replies.awaitTermination(5, TimeUnit.SECONDS);
        }
        assertThat(mostInFlight.get())
                .as("renewals in flight at most")
                .isGreaterThan(LeaseWatchdog.MAX_IN_FLIGHT / 2)
                .isLessThanOrEqualTo(LeaseWatchdog.MAX_IN_FLIGHT);
        assertThat(leases.stream().mapToInt(l -> l.renewals.get()).min().orElse(0))
                .as("renewals of the least renewed lease")
                .isGreaterThanOrEqualTo(3);
    }

    @Test
    void tenThousandLeasesTakenAtOnceAreRenewedInSlicesAndAllInTime() throws Exception {
        int n = 10_000;
        Map<Long, AtomicInteger> perRound = new ConcurrentHashMap<>();
        List<FakeLease> leases = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            leases.add(new FakeLease(perRound));
        }
        runForTwoLeases(leases);

        int budget = 2 * ((n + LeaseWatchdog.SLICES - 1) / LeaseWatchdog.SLICES);
        int largest =
                perRound.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
        assertThat(largest).as("renewals sent in one round").isPositive().isLessThanOrEqualTo(budget);
        assertThat(perRound).as("rounds that sent renewals").hasSizeGreaterThan(n / budget);
        // Two leases' time is six periods (about five renewals each): every lease renewed repeatedly, none
        // skipped, with room for a slow timer thread on a busy machine.
        assertThat(leases.stream().mapToInt(l -> l.renewals.get()).min().orElse(0))
                .as("renewals of the least renewed lease")
                .isGreaterThanOrEqualTo(3);
    }
}
