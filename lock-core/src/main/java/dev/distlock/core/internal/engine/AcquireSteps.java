package dev.distlock.core.internal.engine;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.internal.lease.LeaseKeeper;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.RedisCalls;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.redis.WaitChannel;
import dev.distlock.core.internal.redis.WakeupHub;
import dev.distlock.core.internal.support.Events;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The steps in Redis that the blocking {@link Acquirer} and the thread-free {@link AsyncAcquisition}
 * share: the arguments and grant id of a request, a try (its reply decoded into a {@link Grant} in one
 * place, replica acknowledgements waited for), the wake-up channel, giving back and leaving when a wait
 * ends without a hold, and the outcome events. Neither acquisition calls into the other: both go through
 * these and {@link Grants}.
 */
final class AcquireSteps {

    private final RedisNode node;
    private final RedisCalls calls;
    private final WakeupHub hub;
    private final HoldTable holds;
    private final LeaseKeeper<Hold> keeper;
    private final Events events;
    private final LockClientOptions options;
    /** Numbers the requests of this client; with the owner id they name a grant in Redis. */
    private final AtomicLong requests = new AtomicLong();
    /** Runs what a handle is handed (a grant, a time-out at the gate) off the thread that handed it. */
    private final Executor handOffs;

    AcquireSteps(
            RedisNode node,
            RedisCalls calls,
            WakeupHub hub,
            HoldTable holds,
            LeaseKeeper<Hold> keeper,
            Events events,
            LockClientOptions options,
            Executor handOffs) {
        this.node = node;
        this.calls = calls;
        this.hub = hub;
        this.holds = holds;
        this.keeper = keeper;
        this.events = events;
        this.options = options;
        this.handOffs = handOffs;
    }

    /**
     * The arguments of {@code request}'s tries: under the grant of {@code current}, the owner's live hold
     * it re-enters, else under a grant id of its own.
     */
    ScriptArgs.Acquire argsFor(AcquireRequest request, @Nullable Hold current) {
        if (current == null) {
            return afresh(request);
        }
        return node.acquireArgs(current.redisOwner, request.lease().millis(), current.count(), current.grantId);
    }

    /** The arguments of a new grant for {@code request}'s owner, under a grant id of its own. */
    ScriptArgs.Acquire afresh(AcquireRequest request) {
        return node.acquireArgs(
                request.owner(), request.lease().millis(), 0, Long.toString(requests.incrementAndGet()));
    }

    /** Joins {@code request}'s wake-up channel only if it is subscribed already; see {@link WakeupHub#joinIfOpen}. */
    @Nullable
    WaitChannel joinIfOpen(AcquireRequest request) {
        return hub.joinIfOpen(request.kind().waitChannel(request.keys(), request.owner()));
    }

    WaitChannel join(AcquireRequest request) {
        return hub.join(request.kind().waitChannel(request.keys(), request.owner()));
    }

    void leave(WaitChannel channel) {
        hub.leave(channel);
    }

    /**
     * The acquire script run of a try sent at {@code sentAt}, as {@link RedisCalls} sends it (again after a
     * transient failure): it tells Redis how long the caller may still wait, as of the first sending.
     */
    Supplier<CompletableFuture<List<Object>>> acquireCall(
            AcquireRequest request, ScriptArgs.Acquire args, long deadline, long sentAt) {
        ScriptArgs.Acquire call = args.withWaitMs(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - sentAt)));
        return () -> node.acquire(request.kind(), request.keys(), call);
    }

    /**
     * One try without waiting for it, its reply decoded; replica acknowledgements, when asked for, are
     * waited for in the same future. Cancelling the result cancels the try (and its retries).
     */
    CompletableFuture<Grant> tryAsync(
            AcquireRequest request,
            ScriptArgs.Acquire args,
            long deadline,
            Consumer<CompletableFuture<List<Object>>> sentLate) {
        long sentAt = System.nanoTime();
        CompletableFuture<List<Object>> reply = calls.callAsync(
                acquireCall(request, args, deadline, sentAt),
                calls.stepDeadline(deadline),
                "acquiring",
                request.keys(),
                sentLate);
        CompletableFuture<Grant> answered = reply.thenCompose(r -> {
            Grant grant = Grant.of(r, args.grantId(), sentAt);
            if (options.replicaAcks() == 0 || !grant.granted() || grant.count() != 1) {
                return CompletableFuture.completedFuture(grant);
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
                        return grant;
                    });
        });
        // Cancelling what the caller holds must stop the try's own retries too (Redis refusing it for now, a
        // dropped connection): a retry landing after the caller gave its grant id back would take the lock
        // for nobody until the lease ends.
        answered.whenComplete((r, error) -> {
            if (error instanceof CancellationException) {
                reply.cancel(true);
            }
        });
        return answered;
    }

    LockException replicasMissing(LockKeys keys, long acked) {
        return new LockException(
                "Lock " + keys.lock() + " was granted but only " + acked + " of " + options.replicaAcks()
                        + " replica(s) acknowledged it within "
                        + options.replicaAckTimeout().toMillis()
                        + " ms, so it was given back: check the replicas, or lower replicaAcks",
                null);
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
    void attach(Hold hold, Gate gate, boolean permit) {
        holds.enterGate(hold, gate, permit);
    }

    /** Stops using {@code gate} (joined for {@code request}) without a hold. */
    void leave(AcquireRequest request, Gate gate) {
        holds.leave(request.kind(), request.keys(), gate);
    }

    /** Redis may have granted a new hold and its reply been lost: give that grant back, whenever Redis answers. */
    void giveBackUnheld(AcquireRequest request, ScriptArgs.Acquire args) {
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
        events.failed(request.info(), RedisFailures.unwrap(error), request.startNanos());
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
    static String leaveGrantId(ScriptArgs.Acquire args) {
        return args.held() == 0 ? args.grantId() : "";
    }

    private boolean leaves(LockKind kind, boolean waited) {
        return kind.leavesWhenGivingUp() || (waited && kind.recordsWaiters());
    }

    /**
     * Undoes an async try that may have reached Redis after the undo its acquisition sent when it stopped. Of a fair lock, that
     * leave may have landed before the try, which then queued the waiter again: a place nobody
     * comes back to, which a release would grant the lock to until the place's deadline. So it leaves once
     * more, which also gives back a grant made under the try's grant id. Of other kinds, the try may have
     * taken the lock after its give-back, for nobody until the lease ends, or marked its client as waiting
     * ('~w', which a release then reserves the lock for): given back, and left, again.
     *
     * <p>{@code late}, a try on its way when its caller stopped: undone once it has ended, whatever its end,
     * so that the undo lands after it even when Redis refused its EVALSHA (NOSCRIPT, after a restart or
     * failover) and it went out again as EVAL a round trip later. It is cancelled half a lease on, before
     * the undo would stop trying (after the lease), so that a try still on a dead connection then is
     * dropped, or never sent again by Lettuce after a reconnect; its end then sends the undo.
     */
    void undoLateTry(
            AcquireRequest request,
            ScriptArgs.Acquire sent,
            @Nullable CompletableFuture<?> late,
            ScheduledExecutorService timers) {
        if (late == null) {
            undo(request, sent);
            return;
        }
        late.whenComplete((reply, error) -> undo(request, sent));
        if (!late.isDone()) {
            try {
                timers.schedule(() -> late.cancel(true), request.lease().nanos() / 2, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closing) {
                late.cancel(true);
            }
        }
    }

    private void undo(AcquireRequest request, ScriptArgs.Acquire sent) {
        gaveUpAsync(request, sent, true);
        if (!request.kind().leavesWhenGivingUp() && sent.held() == 0) {
            giveBack(request, sent.grantId());
        }
    }
}
