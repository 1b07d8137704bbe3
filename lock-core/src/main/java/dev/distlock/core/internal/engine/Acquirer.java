package dev.distlock.core.internal.engine;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.lease.LeaseKeeper;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.RedisCalls;
import dev.distlock.core.internal.redis.WakeupHub;
import dev.distlock.core.internal.redis.WakeupHub.WaitChannel;
import dev.distlock.core.internal.support.Events;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acquisition in Redis and waiting: tries, then sleeps on the lock's wake-up channel (each sleep
 * bounded by the holder's TTL) until the deadline, and records a grant as a hold. Every attempt of
 * one call carries the same grant id, so any of them that Redis ran twice, or ran although its reply
 * never came, is one grant that the next attempt or the give-back recognises.
 */
final class Acquirer {

    private static final Logger log = LoggerFactory.getLogger(Acquirer.class);

    private final RedisNode node;
    private final RedisCalls calls;
    private final WakeupHub hub;
    private final HoldTable holds;
    private final LeaseKeeper<Hold> keeper;
    private final Events events;
    private final LockClientOptions options;
    /** Numbers the requests of this client; with the owner id they name a grant in Redis. */
    private final AtomicLong requests = new AtomicLong();

    private final ScheduledExecutorService timers;
    /** Runs what a handle is handed (a grant, a time-out at the gate) off the thread that handed it. */
    private final Executor handOffs;

    Acquirer(
            RedisNode node,
            RedisCalls calls,
            WakeupHub hub,
            HoldTable holds,
            LeaseKeeper<Hold> keeper,
            Events events,
            LockClientOptions options,
            ScheduledExecutorService timers,
            Executor handOffs) {
        this.timers = timers;
        this.handOffs = handOffs;
        this.node = node;
        this.calls = calls;
        this.hub = hub;
        this.holds = holds;
        this.keeper = keeper;
        this.events = events;
        this.options = options;
    }

    /** Acquires in Redis for {@code request.owner()} until {@code deadline}; the hold, or {@code null} when the wait ran out. */
    @Nullable
    Hold acquire(AcquireRequest request, long deadline) throws InterruptedException {
        LockKind kind = request.kind();
        LockKeys keys = request.keys();
        Hold current = holds.get(kind, keys, request.owner());
        boolean reentry = current != null && current.isLive(request.startNanos());
        ScriptArgs.Acquire args = node.acquireArgs(
                reentry ? current.redisOwner : request.owner(),
                request.lease().millis(),
                reentry ? current.count() : 0,
                reentry ? current.grantId : Long.toString(requests.incrementAndGet()));
        boolean acquired = false;
        String channelName = kind.waitChannel(keys, request.owner());
        boolean own = kind.waitsOnOwnChannel() && !reentry;
        // Joined before the first try, a channel kept open since the last wait on it misses no wake-up after it.
        WaitChannel channel = reentry ? null : hub.joinIfOpen(channelName);
        FairHandOffs.Slot slot = own ? expectOffer(request, args) : null;
        int lateGrants = 0;
        try {
            Grant grant = attempt(request, args, deadline);
            while (true) {
                if (grant.granted()) {
                    Hold hold = granted(request, grant);
                    if (hold != null) {
                        acquired = true;
                        return hold;
                    }
                    requireUsableLease(request, grant, ++lateGrants);
                    if (args.held() == 0) {
                        // The next try gets a grant id of its own: the give-back names the old one, and if
                        // it is retried late it must not free a grant made by the next try.
                        args = afresh(request);
                        slot = renewOffer(request, args, slot);
                    }
                    grant = new Grant(
                            false,
                            0,
                            0,
                            args.grantId(),
                            grant.sentNanos()); // arrived after its lease: look again at once
                }
                Hold offered = takeOffer(request, slot);
                if (offered != null) {
                    acquired = true;
                    return offered;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    events.acquire(request.info(), AcquireOutcome.TIMEOUT, request.startNanos());
                    return null;
                }
                if (channel == null) {
                    channel = hub.join(channelName);
                    awaitSubscription(channel, deadline, keys, request.interruptible());
                } else {
                    // The holder's TTL bounds the sleep: a lost wake-up or a crashed holder cannot stall us.
                    // PTTL 0 is the lease's last millisecond (expiry publishes nothing): look again right after it.
                    // Only a key without TTL (-1) falls back to a whole watchdog lease.
                    long ttlMs = grant.ttlMs() >= 0 ? Math.max(1, grant.ttlMs()) : keeper.watchdogLeaseMs();
                    channel.await(Math.min(TimeUnit.MILLISECONDS.toNanos(ttlMs), remaining), request.interruptible());
                }
                if (request.interruptible() && Thread.interrupted()) {
                    throw new InterruptedException("Interrupted while waiting for lock '"
                            + request.info().key() + "'");
                }
                offered = takeOffer(request, slot);
                if (offered != null) {
                    acquired = true;
                    return offered;
                }
                grant = attempt(request, args, deadline);
            }
        } catch (LockUnavailableException e) {
            giveBackUnheld(request, args);
            throw e;
        } finally {
            withdrawOffer(slot);
            if (channel != null) {
                hub.leave(channel);
            }
            if (!acquired) {
                gaveUp(request, args, channel != null);
            }
        }
    }

    /**
     * The slot where a new request for a fair lock is offered a grant in-process ({@link FairHandOffs}),
     * made before its first try; {@code null} for other kinds.
     */
    FairHandOffs.@Nullable Slot expectOffer(AcquireRequest request, ScriptArgs.Acquire args) {
        LockKind kind = request.kind();
        if (!kind.waitsOnOwnChannel()) {
            return null;
        }
        return node.fair.expect(kind.waitChannel(request.keys(), request.owner()), args.grantId(), request.lease());
    }

    /** The slot of a request that took a new grant id ({@link #afresh}), in place of {@code old}. */
    FairHandOffs.@Nullable Slot renewOffer(
            AcquireRequest request, ScriptArgs.Acquire args, FairHandOffs.@Nullable Slot old) {
        if (old == null) {
            return null;
        }
        withdrawOffer(old);
        return expectOffer(request, args);
    }

    /**
     * The hold a fair grant offered in-process gives {@code request}'s owner; {@code null} when none was
     * offered, or when the grant is too close to its lease's end to use: a line's grant is then passed
     * on, and a grant Redis made to this request is taken up by its next try (which renews it).
     */
    @Nullable
    Hold takeOffer(AcquireRequest request, FairHandOffs.@Nullable Slot slot) {
        FairHandOffs.Offer offer = slot == null ? null : node.fair.take(slot);
        if (offer == null) {
            return null;
        }
        LocalGates.Baton baton = offer.baton();
        long now = System.nanoTime();
        if (baton.validUntilNanos() - now < baton.lease().nanos() / 2) {
            passOn(offer);
            return null;
        }
        Hold hold = new Hold(baton, request.info(), request.owner(), request.thread(), now);
        hold.cohort = offer.cohort();
        return recorded(request, hold);
    }

    /** Whether a grant was offered to {@code slot}'s request and not yet taken. */
    boolean offered(FairHandOffs.Slot slot) {
        return node.fair.offered(slot);
    }

    /** Ends the wait of {@code slot}'s request; a grant offered to it and not taken is passed on. */
    void withdrawOffer(FairHandOffs.@Nullable Slot slot) {
        FairHandOffs.Offer offer = slot == null ? null : node.fair.withdraw(slot);
        if (offer != null) {
            passOn(offer);
        }
    }

    /**
     * Passes on a fair grant offered to a request that does not use it: a line's grant to the next in the
     * line, else back in Redis. A grant Redis made to the request itself stays: the request's leave gives
     * it back (or its next try takes it up).
     */
    private void passOn(FairHandOffs.Offer offer) {
        LocalGates.Baton baton = offer.baton();
        if (offer.direct() || node.fair.handOn(baton, offer.cohort())) {
            return;
        }
        node.giveBack(
                baton.kind(),
                baton.keys(),
                baton.redisOwner(),
                baton.grantId(),
                baton.validUntilNanos(),
                offer.cohort().served());
    }

    private void awaitSubscription(WaitChannel channel, long deadline, LockKeys keys, boolean interruptible)
            throws InterruptedException {
        boolean interrupted = false;
        long until = Math.min(deadline - System.nanoTime(), calls.operationTimeoutNanos()) + System.nanoTime();
        try {
            while (true) {
                try {
                    channel.subscribed().get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                    return;
                } catch (InterruptedException e) {
                    if (interruptible) {
                        throw e;
                    }
                    interrupted = true; // lock() is not interruptible: keep waiting, restore the flag after
                } catch (TimeoutException | ExecutionException e) {
                    // Waiting still works without it: every sleep is bounded by the holder's TTL.
                    log.debug("Subscription to {} not confirmed: {}", keys.channel(), e.toString());
                    return;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * One script run, bounded by the caller's deadline (at least {@link RedisCalls#MIN_STEP_NANOS}) and
     * by the operation timeout; silence and refusals for now are ridden out as {@link RideOut} says.
     */
    private Grant attempt(AcquireRequest request, ScriptArgs.Acquire args, long deadline) throws InterruptedException {
        while (true) {
            try {
                return attemptOnce(request, args, deadline);
            } catch (LockUnavailableException e) {
                RideOut.orThrow(e, request, deadline, () -> giveBackUnheld(request, args));
            }
        }
    }

    private Grant attemptOnce(AcquireRequest request, ScriptArgs.Acquire args, long deadline) {
        long sentAt = System.nanoTime();
        ScriptArgs.Acquire call = args.withWaitMs(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - sentAt)));
        Grant grant = Grant.of(
                calls.call(
                        () -> node.acquire(request.kind(), request.keys(), call),
                        calls.stepDeadline(deadline),
                        "acquiring",
                        request.keys()),
                args.grantId(),
                sentAt);
        if (grant.granted() && grant.count() == 1 && options.replicaAcks() > 0) {
            confirmReplicated(request, args, deadline);
        }
        return grant;
    }

    /** WAIT for the configured replicas after a new grant; give the grant back when too few acknowledge. */
    private void confirmReplicated(AcquireRequest request, ScriptArgs.Acquire args, long deadline) {
        LockKeys keys = request.keys();
        long acked = calls.call(
                () -> node.waitForReplicas(
                        options.replicaAcks(), options.replicaAckTimeout().toMillis()),
                calls.stepDeadline(deadline) + options.replicaAckTimeout().toNanos(),
                "waiting for replicas of",
                keys);
        if (acked < options.replicaAcks()) {
            RedisNode.ReleaseCall call = node.releaseCall();
            calls.call(
                    () -> node.release(request.kind(), keys, args.owner(), args.grantId(), 1, 0, false, "", call),
                    calls.operationDeadline(),
                    "giving back",
                    keys);
            throw replicasMissing(keys, acked);
        }
    }

    private LockException replicasMissing(LockKeys keys, long acked) {
        return new LockException(
                "Lock " + keys.lock() + " was granted but only " + acked + " of " + options.replicaAcks()
                        + " replica(s) acknowledged it within "
                        + options.replicaAckTimeout().toMillis()
                        + " ms, so it was given back: check the replicas, or lower replicaAcks",
                null);
    }

    /**
     * Records a grant. Returns {@code null} for a grant whose reply came after its lease had already run
     * out in Redis (counted from when the request was sent): it is given back, and the caller looks again.
     */
    @Nullable
    Hold granted(AcquireRequest request, Grant grant) {
        long now = System.nanoTime();
        Lease lease = request.lease();
        Hold existing = holds.get(request.kind(), request.keys(), request.owner());
        if (grant.count() > 1
                && existing != null
                && existing.grantId.equals(grant.grantId())
                && !existing.released
                && existing.lostReason() == null) {
            if (!grantedAnew(existing, grant)) {
                existing.reentered(lease.millis(), grant.sentNanos());
                keeper.watch(existing);
                return existing;
            }
            // a new grant, whatever count it carries: the old hold is superseded below and reported lost
            grant = new Grant(true, grant.token(), 1, grant.grantId(), grant.sentNanos());
        }
        if (now - (grant.sentNanos() + lease.nanos()) >= 0) {
            node.giveBack(
                    request.kind(),
                    request.keys(),
                    request.owner(),
                    grant.grantId(),
                    now + calls.operationTimeoutNanos());
            return null;
        }
        Hold hold = new Hold(
                request.kind(),
                request.info(),
                request.keys(),
                request.owner(),
                request.thread(),
                grant,
                lease,
                options.localHandOffs() + 1);
        return recorded(request, hold);
    }

    /**
     * Whether a fair re-entry's {@code grant} is in truth a new grant under the hold's grant id: the hold's
     * lease ran out in Redis unnoticed (renewals failing), its re-entry found the lock taken and queued under
     * the grant id it carries, and a release then granted the lock to that place anew, with a new fencing
     * token, which the re-entry took up. A re-entry proper answers the token of the grant the hold stands on.
     * Only fair locks grant to a queued place; a fair hold passed down from another owner's grant has a token
     * of that grant's block, so only a hold on its own grant can tell.
     */
    private static boolean grantedAnew(Hold existing, Grant grant) {
        return existing.kind instanceof FairKind
                && existing.redisOwner.equals(existing.owner)
                && grant.token() != existing.token;
    }

    /** Grants of one wait that may arrive after their lease before the lease is called too short for this network. */
    static final int LATE_GRANTS_TOLERATED = 3;

    /**
     * Called when {@code grant} reached this client after its lease had ended ({@link #granted} gave it
     * back), the {@code late}th time in this wait: once that happened {@link #LATE_GRANTS_TOLERATED}
     * times to a fixed lease, it is shorter than a round trip to Redis and the lock could never be used,
     * so the caller is told instead of being made to try for ever. A pause of this JVM makes a single
     * late grant, which is tried again.
     *
     * @throws IllegalArgumentException when the lease is too short to use
     */
    static void requireUsableLease(AcquireRequest request, Grant grant, int late) {
        Lease lease = request.lease();
        if (lease.watchdog() || late < LATE_GRANTS_TOLERATED) {
            return;
        }
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - grant.sentNanos());
        throw new IllegalArgumentException("lease of lock '" + request.info().key() + "' (" + lease.millis()
                + " ms) had ended before Redis's grant reached this client " + late
                + " times in this wait (the last reply took " + tookMs + " ms): use a lease well above the round trip"
                + " to Redis, or leave it out to use the watchdog");
    }

    /** Records a new hold of {@code request}'s owner: the hold table, the lease keeper, the acquire event. */
    private Hold recorded(AcquireRequest request, Hold hold) {
        Hold superseded = holds.put(hold);
        if (superseded != null) {
            keeper.stop(superseded);
            keeper.lost(superseded, "its lease had already run out in Redis when its owner locked again");
        }
        keeper.watch(hold);
        events.acquire(request.info(), AcquireOutcome.ACQUIRED, request.startNanos());
        return hold;
    }

    /**
     * Acquires for a handle until {@code deadline} without blocking a thread: no re-entry (every handle
     * is an owner of its own), its turn at the local gate first when the kind has one. The future
     * completes with the hold, with {@code null} when the wait ran out, or exceptionally; cancelling it
     * gives everything up.
     */
    CompletableFuture<@Nullable Hold> acquireAsync(AcquireRequest request, long deadline) {
        ScriptArgs.Acquire args = afresh(request);
        LocalGates.Gate gate = request.kind().localQueue() ? holds.join(request.kind(), request.keys()) : null;
        AsyncAcquisition acquisition = new AsyncAcquisition(this, request, deadline, args, timers, gate);
        acquisition.start();
        return acquisition.result;
    }

    /**
     * Runs {@code task} on the client's hand-off threads: the thread that handed a handle its grant may be
     * inside another caller's unlock or be the client's timer, and the handle's caller code runs next.
     * A closing client runs it here (it then finds the client closed).
     */
    void offThread(Runnable task) {
        try {
            handOffs.execute(task);
        } catch (RejectedExecutionException closing) {
            task.run();
        }
    }

    /** Gives {@code gate}'s place (and its permit, if {@code permit}) to {@code hold} until its last release. */
    void attach(Hold hold, LocalGates.Gate gate, boolean permit) {
        holds.enterGate(hold, gate, permit);
    }

    /** Stops using {@code gate} (joined for {@code request}) without a hold. */
    void leave(AcquireRequest request, LocalGates.Gate gate) {
        holds.leave(request.kind(), request.keys(), gate);
    }

    /** The arguments of a new grant for {@code request}'s owner, under a grant id of its own. */
    ScriptArgs.Acquire afresh(AcquireRequest request) {
        return node.acquireArgs(
                request.owner(), request.lease().millis(), 0, Long.toString(requests.incrementAndGet()));
    }

    /** One try without waiting for it; replica acknowledgements, when asked for, are waited for in the same future. */
    CompletableFuture<List<Object>> tryAsync(
            AcquireRequest request,
            ScriptArgs.Acquire args,
            long deadline,
            Consumer<CompletableFuture<List<Object>>> sentLate) {
        ScriptArgs.Acquire call =
                args.withWaitMs(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        CompletableFuture<List<Object>> reply = calls.callAsync(
                () -> node.acquire(request.kind(), request.keys(), call),
                calls.stepDeadline(deadline),
                "acquiring",
                request.keys(),
                sentLate);
        if (options.replicaAcks() == 0) {
            return reply;
        }
        CompletableFuture<List<Object>> acknowledged = reply.thenCompose(r -> {
            if ((Long) r.get(0) != 1L || (Long) r.get(2) != 1L) {
                return CompletableFuture.completedFuture(r);
            }
            return calls.callAsync(
                            () -> node.waitForReplicas(
                                    options.replicaAcks(),
                                    options.replicaAckTimeout().toMillis()),
                            calls.stepDeadline(deadline)
                                    + options.replicaAckTimeout().toNanos(),
                            "waiting for replicas of",
                            request.keys())
                    .thenApply(acked -> {
                        if (acked < options.replicaAcks()) {
                            giveBack(request, args.grantId());
                            throw replicasMissing(request.keys(), acked);
                        }
                        return r;
                    });
        });
        // Cancelling what the caller holds must stop the try's own retries too (Redis refusing it for now, a
        // dropped connection): a retry landing after the caller gave its grant id back would take the lock
        // for nobody until the lease ends.
        acknowledged.whenComplete((r, error) -> {
            if (error instanceof CancellationException) {
                reply.cancel(true);
            }
        });
        return acknowledged;
    }

    /**
     * A hold whose acquisition was cancelled after Redis granted it (and its acquire event fired): forget
     * it, give it back, and report its release, so that listeners see every grant released once.
     */
    void abandon(Hold hold) {
        holds.remove(hold);
        keeper.stop(hold);
        node.giveBack(hold);
        holds.exitGate(hold); // after the give-back: the next local waiter's try goes after it
        events.release(hold.info, hold.heldFor(System.nanoTime()));
    }

    /**
     * The hold a local hand-off gives {@code request}'s owner, without a round trip; {@code null} when
     * the baton's lease is too close to its end to pass on (it is then given back in Redis, and the
     * caller, which holds the gate's permit, acquires in Redis as usual).
     */
    @Nullable
    Hold handedOn(AcquireRequest request, LocalGates.Baton baton) {
        long now = System.nanoTime();
        if (baton.validUntilNanos() - now < baton.lease().nanos() / 2) {
            giveBack(baton);
            return null;
        }
        Hold hold = new Hold(baton, request.info(), request.owner(), request.thread(), now);
        return recorded(request, hold);
    }

    /** Gives back in Redis a grant handed on to a caller that no longer wants it. */
    void giveBack(LocalGates.Baton baton) {
        node.giveBack(baton.kind(), baton.keys(), baton.redisOwner(), baton.grantId(), baton.validUntilNanos());
    }

    /** Redis may have granted a new hold and its reply been lost: give that grant back, whenever Redis answers. */
    private void giveBackUnheld(AcquireRequest request, ScriptArgs.Acquire args) {
        if (args.held() == 0) {
            giveBack(request, args.grantId());
        }
    }

    void giveBack(AcquireRequest request, String grantId) {
        node.giveBack(
                request.kind(),
                request.keys(),
                request.owner(),
                grantId,
                System.nanoTime() + request.lease().nanos());
    }

    void timedOut(AcquireRequest request) {
        events.acquire(request.info(), AcquireOutcome.TIMEOUT, request.startNanos());
    }

    void failed(AcquireRequest request, Throwable error) {
        events.failed(request.info(), RedisCalls.unwrap(error), request.startNanos());
    }

    WaitChannel join(AcquireRequest request) {
        return hub.join(request.kind().waitChannel(request.keys(), request.owner()));
    }

    void leave(WaitChannel channel) {
        hub.leave(channel);
    }

    long operationTimeoutNanos() {
        return calls.operationTimeoutNanos();
    }

    long watchdogLeaseMs() {
        return keeper.watchdogLeaseMs();
    }

    /**
     * Leaves a fair queue (or whatever the kind does on giving up) without waiting for it; {@code waited}:
     * whether the caller waited in Redis (was told the lock is busy while it still had time to wait).
     */
    void gaveUpAsync(AcquireRequest request, ScriptArgs.Acquire args, boolean waited) {
        if (!leaves(request.kind(), waited) || calls.isClosed()) {
            return;
        }
        // Tried until the request's lease would have ended, as a give-back is: a fair lock may have been granted
        // to the waiter as it gave up (given back by the same call), and a waiting mark left behind (a slot
        // migration refusing the leave with TRYAGAIN for longer than an operation timeout) keeps reserving the
        // lock for this client, or holding readers back for a writer, after the slot has settled.
        long until = System.nanoTime() + request.lease().nanos();
        calls.inBackground(
                () -> node.gaveUp(request.kind(), request.keys(), request.owner(), args.grantId(), leaveGrantId(args)),
                until,
                "leaving the queue of",
                request.keys());
    }

    /** The grant id a leave may give back: none for a re-entry, whose grant is the owner's hold. */
    private static String leaveGrantId(ScriptArgs.Acquire args) {
        return args.held() == 0 ? args.grantId() : "";
    }

    private boolean leaves(LockKind kind, boolean waited) {
        return kind.leavesWhenGivingUp() || (waited && kind.recordsWaiters());
    }

    /** Leaves a fair queue (or whatever the kind does on giving up), waiting briefly: Redis may not answer. */
    private void gaveUp(AcquireRequest request, ScriptArgs.Acquire args, boolean waited) {
        if (!request.kind().leavesWhenGivingUp()) {
            // Only a record of waiting to take back: nobody waits for it, so neither does the caller.
            gaveUpAsync(request, args, waited);
            return;
        }
        if (calls.isClosed()) {
            return;
        }
        try {
            calls.call(
                    () -> node.gaveUp(
                            request.kind(), request.keys(), request.owner(), args.grantId(), leaveGrantId(args)),
                    System.nanoTime() + RedisCalls.MIN_STEP_NANOS,
                    "leaving the queue of",
                    request.keys());
        } catch (LockException e) {
            // The acquire ends anyway and its own outcome matters more. The queue place would expire with its
            // deadline, but a grant made to the waiter meanwhile only with its lease: keep trying in the background.
            log.warn(
                    "Could not leave the queue of lock {} yet; trying again in the background: {}",
                    request.keys().lock(),
                    e.toString());
            gaveUpAsync(request, args, waited);
        }
    }
}
