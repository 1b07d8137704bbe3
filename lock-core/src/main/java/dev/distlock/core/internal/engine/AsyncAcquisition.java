package dev.distlock.core.internal.engine;

import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.redis.WaitChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition that waits without a thread: each step (its turn at the local gate, a try in Redis,
 * the subscription, a sleep on the wake-up channel) is a future whose completion runs the next. The
 * same grant id serves every try, as in the blocking {@link Acquirer}. Completing or cancelling {@link #result}
 * early stops it, and nothing stays behind: a grant that may have happened is given back, a
 * fair-queue place is left, the gate's permit (and a grant handed on with it) goes to the next local
 * waiter. The state below is guarded by this object's monitor, held only for a few non-blocking steps.
 */
final class AsyncAcquisition {

    private final AcquireSteps steps;
    private final Grants grants;
    private final AcquireRequest request;
    private final long deadline;
    /** Replaced (a new grant id) after a grant that came too late was given back. */
    private volatile ScriptArgs.Acquire args;

    private final ScheduledExecutorService timers;
    /** Its turn at the local gate it queues at first, or {@code null} (a kind without one). */
    private final @Nullable GateTurn turn;
    /** Completes with the hold, with {@code null} when the wait ran out, or exceptionally. */
    final CompletableFuture<@Nullable Hold> result = new CompletableFuture<>();

    /** Guarded by this, as {@link GateTurn}'s state is. */
    boolean finished;
    /** Its wait ran out and its listeners were told so, before its result completes. */
    private boolean timedOut;

    private @Nullable WaitChannel channel;
    /** Where a fair grant is offered to it in-process (fair locks), made before its first try. */
    private volatile GrantOffers.@Nullable Slot slot;

    private @Nullable CompletableFuture<?> call;
    private @Nullable CompletableFuture<Boolean> sleep;
    /** Grants of this wait that reached this client after their lease ({@link Grants#requireUsableLease}). */
    private int lateGrants;

    private AsyncAcquisition(
            AcquireSteps steps,
            Grants grants,
            AcquireRequest request,
            long deadline,
            ScriptArgs.Acquire args,
            ScheduledExecutorService timers,
            @Nullable Gate gate) {
        this.turn = gate == null ? null : new GateTurn(this, gate, steps, grants, request, deadline, timers);
        this.steps = steps;
        this.grants = grants;
        this.request = request;
        this.deadline = deadline;
        this.args = args;
        this.timers = timers;
        result.whenComplete(this::finished);
    }

    /**
     * Acquires for a handle until {@code deadline} without blocking a thread: no re-entry (every handle
     * is an owner of its own), its turn at the local gate first when the kind has one. The future
     * completes with the hold, with {@code null} when the wait ran out, or exceptionally; cancelling it
     * gives everything up.
     */
    static CompletableFuture<@Nullable Hold> start(
            AcquireSteps steps,
            Grants grants,
            HoldTable holds,
            AcquireRequest request,
            long deadline,
            ScheduledExecutorService timers) {
        Gate gate = request.kind().localQueue() ? holds.join(request.kind(), request.keys()) : null;
        AsyncAcquisition acquisition =
                new AsyncAcquisition(steps, grants, request, deadline, steps.afresh(request), timers, gate);
        acquisition.start();
        return acquisition.result;
    }

    private void start() {
        if (turn == null) {
            slot = grants.expectOffer(request, args);
            attempt();
        } else {
            turn.start();
        }
    }

    /** Completes the result with {@code hold}, which takes over the place at the gate; given back if the result was cancelled. */
    void deliver(Hold hold) {
        if (turn != null) {
            synchronized (this) {
                turn.attach(hold);
            }
        }
        if (!result.complete(hold)) {
            grants.abandon(hold); // cancelled meanwhile: nobody would release it
        }
    }

    void attempt() {
        synchronized (this) {
            if (finished) {
                return;
            }
            if (turn != null && slot == null) {
                // Its turn at the gate came: the slot where a release's grant is offered, before its first try
                // (made under the monitor, so that finished() withdraws it).
                slot = grants.expectOffer(request, args);
            }
        }
        ScriptArgs.Acquire sent = args;
        // Sent outside the monitor. A retry of it (a dropped connection) may also go out as finished() runs:
        // the call then undoes it once more itself.
        CompletableFuture<Grant> reply =
                steps.tryAsync(request, sent, deadline, late -> steps.undoLateTry(request, sent, late, timers));
        synchronized (this) {
            if (finished) {
                // finished() ran meanwhile and could not see this call: stop it, and undo what it may still do.
                reply.cancel(true);
                steps.undoLateTry(request, sent, null, timers);
                return;
            }
            call = reply;
        }
        reply.whenComplete((r, error) -> {
            Throwable cause = error == null ? null : RedisFailures.unwrap(error);
            if (RideOut.sendAgain(cause, request.startNanos(), deadline)) {
                attempt(); // Redis silent or refusing only for now: ride it out within the wait
            } else if (error != null) {
                result.completeExceptionally(RedisFailures.asLockException(error));
            } else {
                answered(r);
            }
        });
    }

    private void answered(Grant grant) {
        if (grant.granted()) {
            Hold hold = grants.granted(request, grant);
            if (hold == null) {
                try {
                    Grants.requireUsableLease(request, grant, ++lateGrants);
                } catch (IllegalArgumentException e) {
                    result.completeExceptionally(e);
                    return;
                }
                args = steps.afresh(request); // as in Acquirer: the give-back names the old grant id
                slot = grants.renewOffer(request, args, slot);
                boolean stopped;
                synchronized (this) {
                    stopped = finished;
                }
                if (stopped) {
                    // finished() may have withdrawn the slot this one replaced: withdraw this one too, or it
                    // would stay among the client's slots for good.
                    grants.withdrawOffer(slot);
                    return;
                }
                attempt(); // arrived after its lease (given back): look again at once
            } else {
                deliver(hold);
            }
            return;
        }
        Grants.answered(slot, grant);
        if (tookOffer()) {
            return;
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
            timeOut();
            return;
        }
        CompletableFuture<?> next;
        synchronized (this) {
            if (finished) {
                return;
            }
            if (channel == null) {
                channel = steps.join(request);
                // Try again once Redis confirmed the subscription (a release after that is never missed), or
                // after the operation timeout: waiting still works without it, each sleep bounded by the TTL.
                next = channel.subscribed()
                        .copy()
                        .orTimeout(
                                Math.max(1, Math.min(remaining, steps.operationTimeoutNanos())), TimeUnit.NANOSECONDS);
            } else {
                // The holder's TTL bounds the sleep, as in Acquirer.
                long ttlMs = grant.ttlMs() >= 0 ? Math.max(1, grant.ttlMs()) : steps.watchdogLeaseMs();
                sleep = channel.sleep(Math.min(TimeUnit.MILLISECONDS.toNanos(ttlMs), remaining), timers);
                next = sleep;
            }
        }
        next.whenComplete((ignored, error) -> woke());
    }

    /** After a sleep: take up a grant offered in-process (fair locks), else try in Redis. */
    private void woke() {
        synchronized (this) {
            if (finished) {
                return; // finished() withdraws from its slot and passes on a grant offered meanwhile
            }
        }
        if (!tookOffer()) {
            attempt();
        }
    }

    /**
     * Takes a fair grant offered in-process, if one came, and completes with it; whether one came. Off
     * the thread that runs this (it may be inside the unlock of the holder that passed the grant on, or be
     * the client's I/O thread); should the grant be unusable there, it tries in Redis instead.
     */
    private boolean tookOffer() {
        GrantOffers.Slot s = slot;
        if (s == null || !grants.offered(s)) {
            return false;
        }
        steps.offThread(() -> {
            Hold hold = grants.takeOffer(request, s);
            if (hold != null) {
                deliver(hold);
            } else {
                attempt();
            }
        });
        return true;
    }

    /**
     * Ends the wait empty: the listeners hear of the timeout before the caller does, as they hear of a grant
     * before it is delivered, so the caller's code that follows sees it counted. A caller that stopped
     * first keeps its own outcome, and one that stops meanwhile adds no second one (see {@link #finished}).
     */
    void timeOut() {
        synchronized (this) {
            if (finished || timedOut) {
                return;
            }
            timedOut = true;
        }
        steps.timedOut(request);
        result.complete(null);
    }

    private void finished(@Nullable Hold hold, @Nullable Throwable error) {
        WaitChannel joined;
        CompletableFuture<?> pendingCall;
        CompletableFuture<Boolean> pendingSleep;
        GateTurn.Standing stood;
        boolean told;
        synchronized (this) {
            finished = true;
            told = timedOut;
            joined = channel;
            pendingCall = call;
            pendingSleep = sleep;
            stood = turn == null ? null : turn.standing();
        }
        if (stood != null) {
            turn.stopped(stood);
        }
        // A try still in flight may have found the lock busy and marked its client as waiting ('~w'), as a
        // wait does: leave then too.
        boolean tryInFlight = pendingCall != null && !pendingCall.isDone();
        boolean waited = joined != null || tryInFlight;
        if (tryInFlight) {
            pendingCall.cancel(true); // cancels the command too, so that Lettuce does not send it again
        }
        grants.withdrawOffer(slot);
        if (joined != null) {
            if (pendingSleep != null) {
                joined.cancel(pendingSleep);
            }
            steps.leave(joined);
        }
        if (hold == null) {
            steps.gaveUpAsync(request, args, waited);
            if (error != null) {
                if (args.held() == 0) {
                    // A try may have been granted with its reply lost or cancelled: give that grant back.
                    steps.giveBack(request, args.grantId());
                }
                if (!told) { // stopped by its caller as it timed out: the timeout was its outcome
                    steps.failed(request, error);
                }
            }
        }
    }
}
