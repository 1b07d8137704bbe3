package dev.distlock.core;

import dev.distlock.core.pubsub.WakeupHub.WaitChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One acquisition that waits without a thread: each step (a try in Redis, the subscription, a sleep
 * on the wake-up channel) is a future whose completion runs the next. The same grant id serves every
 * try, as in {@link Acquirer}. Completing or cancelling {@link #result} early stops it, and nothing
 * stays behind in Redis: a grant that may have happened is given back, a fair-queue place is left.
 * The state below is guarded by this object's monitor, held only for a few non-blocking steps.
 */
final class AsyncAcquisition {

    private final Acquirer acquirer;
    private final AcquireRequest request;
    private final long deadline;
    /** Replaced (a new grant id) after a grant that came too late was given back. */
    private volatile ScriptArgs.Acquire args;

    private final ScheduledExecutorService timers;
    /** Completes with the hold, with {@code null} when the wait ran out, or exceptionally. */
    final CompletableFuture<@Nullable Hold> result = new CompletableFuture<>();

    private boolean finished;
    private @Nullable WaitChannel channel;
    private @Nullable CompletableFuture<?> call;
    private @Nullable CompletableFuture<Boolean> sleep;

    AsyncAcquisition(
            Acquirer acquirer,
            AcquireRequest request,
            long deadline,
            ScriptArgs.Acquire args,
            ScheduledExecutorService timers) {
        this.acquirer = acquirer;
        this.request = request;
        this.deadline = deadline;
        this.args = args;
        this.timers = timers;
        result.whenComplete(this::finished);
    }

    void start() {
        attempt();
    }

    private void attempt() {
        long sentAt = System.nanoTime();
        synchronized (this) {
            if (finished) {
                return;
            }
        }
        CompletableFuture<List<Object>> reply = acquirer.tryAsync(request, args, deadline); // sent outside the monitor
        synchronized (this) {
            if (finished) {
                // finished() ran meanwhile and could not see this call: stop it, and give back a grant it may
                // still make (sent after it on the same connection, so it lands after it).
                reply.cancel(true);
                if (args.held() == 0) {
                    acquirer.giveBack(request, args.grantId());
                }
                return;
            }
            call = reply;
        }
        reply.whenComplete((r, error) -> {
            Throwable cause = error == null ? null : RedisCalls.unwrap(error);
            if (cause instanceof LockUnavailableException
                    && RedisCalls.refusedForNow(cause.getCause())
                    && deadline - System.nanoTime() > 0) {
                attempt(); // Redis refuses only for now (a slot migrating, a failover): ride it out within the wait
            } else if (error != null) {
                result.completeExceptionally(RedisCalls.asLockException(error));
            } else {
                answered(Grant.of(r, args.grantId(), sentAt));
            }
        });
    }

    private void answered(Grant grant) {
        if (grant.granted()) {
            Hold hold = acquirer.granted(request, grant);
            if (hold == null) {
                args = acquirer.afresh(request); // as in Acquirer: the give-back names the old grant id
                attempt(); // arrived after its lease (given back): look again at once
            } else if (!result.complete(hold)) {
                acquirer.abandon(hold); // cancelled meanwhile: nobody would release it
            }
            return;
        }
        long remaining = deadline - System.nanoTime();
        if (remaining <= 0) {
            if (result.complete(null)) {
                acquirer.timedOut(request);
            }
            return;
        }
        CompletableFuture<?> next;
        synchronized (this) {
            if (finished) {
                return;
            }
            if (channel == null) {
                channel = acquirer.join(request);
                // Try again once Redis confirmed the subscription (a release after that is never missed), or
                // after the operation timeout: waiting still works without it, each sleep bounded by the TTL.
                next = channel.subscribed()
                        .copy()
                        .orTimeout(
                                Math.max(1, Math.min(remaining, acquirer.operationTimeoutNanos())),
                                TimeUnit.NANOSECONDS);
            } else {
                // The holder's TTL bounds the sleep, as in Acquirer.
                long ttlMs = grant.ttlMs() >= 0 ? Math.max(1, grant.ttlMs()) : acquirer.watchdogLeaseMs();
                sleep = channel.sleep(Math.min(TimeUnit.MILLISECONDS.toNanos(ttlMs), remaining), timers);
                next = sleep;
            }
        }
        next.whenComplete((ignored, error) -> attempt());
    }

    private void finished(@Nullable Hold hold, @Nullable Throwable error) {
        WaitChannel joined;
        CompletableFuture<?> pendingCall;
        CompletableFuture<Boolean> pendingSleep;
        synchronized (this) {
            finished = true;
            joined = channel;
            pendingCall = call;
            pendingSleep = sleep;
        }
        if (pendingCall != null && !pendingCall.isDone()) {
            pendingCall.cancel(true); // cancels the command too, so that Lettuce does not send it again
        }
        if (joined != null) {
            if (pendingSleep != null) {
                joined.cancel(pendingSleep);
            }
            acquirer.leave(joined);
        }
        if (hold == null) {
            acquirer.gaveUpAsync(request, joined != null);
            if (error != null) {
                if (args.held() == 0) {
                    // A try may have been granted with its reply lost or cancelled: give that grant back.
                    acquirer.giveBack(request, args.grantId());
                }
                acquirer.failed(request, error);
            }
        }
    }
}
