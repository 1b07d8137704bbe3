package dev.distlock.core.internal.engine;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockLeaseExpiredException;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.internal.lease.LeaseKeeper;
import dev.distlock.core.internal.redis.RedisCalls;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.support.Events;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Releases holds: counts a hold down, runs the release script (told how many holds the owner has, so
 * running it twice releases once), and handles its answer: the last release frees the local gate and
 * wakes a local waiter (or passes the grant on in-process, see {@link HandOns}); a hold found gone is reported lost; a release Redis does not confirm is
 * retried in the background until the lease ends.
 */
final class Releaser {

    private final RedisNode node;
    private final RedisCalls calls;
    private final HoldTable holds;
    private final LeaseKeeper<Hold> keeper;
    private final Events events;
    private final HandOns handOns;

    Releaser(
            RedisNode node,
            RedisCalls calls,
            HoldTable holds,
            LeaseKeeper<Hold> keeper,
            Events events,
            LockClientOptions options) {
        this.handOns = new HandOns(node, calls, holds, events, options);
        this.node = node;
        this.calls = calls;
        this.holds = holds;
        this.keeper = keeper;
        this.events = events;
    }

    /**
     * Releases one hold count. The script is told how many holds the owner has, so running it twice
     * (a reply lost) releases once.
     *
     * @throws LockLeaseExpiredException when the hold was lost or its lease ran out
     * @throws LockUnavailableException when Redis did not confirm the release within the operation
     *         timeout; a last release is then retried in the background until the lease ends
     */
    void release(Hold hold, Duration holdAtLeast) {
        int held = hold.count();
        boolean last = beginRelease(hold);
        long keepMs = keepMs(hold, last, holdAtLeast);
        if (last && keepMs == 0 && handOns.passedOn(hold)) {
            return;
        }
        long result;
        try {
            // On the caller's thread (events too): the starter tells its own calls apart by thread.
            RedisNode.ReleaseCall call = node.releaseCall();
            result =
                    calls.call(() -> send(hold, held, keepMs, call), calls.operationDeadline(), "releasing", hold.keys);
        } catch (LockException e) {
            throw released(hold, last, 0, e);
        }
        RuntimeException failure = released(hold, last, result, null);
        if (failure != null) {
            throw failure;
        }
    }

    /** {@link #release} without blocking: the future fails with the exceptions {@code release} throws. */
    CompletableFuture<Void> releaseAsync(Hold hold, Duration holdAtLeast) {
        int held = hold.count();
        boolean last;
        try {
            last = beginRelease(hold);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        long keepMs = keepMs(hold, last, holdAtLeast);
        if (last && keepMs == 0 && handOns.passedOn(hold)) {
            return CompletableFuture.completedFuture(null);
        }
        RedisNode.ReleaseCall call = node.releaseCall();
        return calls.callAsync(() -> send(hold, held, keepMs, call), calls.operationDeadline(), "releasing", hold.keys)
                .handle((result, error) -> {
                    RuntimeException failure = released(hold, last, result == null ? 0 : result, error);
                    if (failure != null) {
                        throw failure;
                    }
                    return null;
                });
    }

    /** Runs the release script for {@code held} holds of {@code hold}, keeping the lock {@code keepMs} after it. */
    private CompletableFuture<Long> send(Hold hold, int held, long keepMs, RedisNode.ReleaseCall call) {
        return node.release(
                hold.kind,
                hold.keys,
                hold.redisOwner,
                hold.grantId,
                held,
                keepMs,
                hold.watchdog(),
                hold.served(),
                call);
    }

    /**
     * How long a last release leaves the lock taken so that it stays taken {@code holdAtLeast} after its
     * grant (rounded up, so never shorter); 0 for a release that is not the last or comes later.
     */
    private static long keepMs(Hold hold, boolean last, Duration holdAtLeast) {
        if (!last || holdAtLeast.isZero()) {
            return 0;
        }
        long leftNanos = holdAtLeast.toNanos() - hold.heldFor(System.nanoTime()).toNanos();
        return leftNanos <= 0 ? 0 : (leftNanos + 999_999) / 1_000_000;
    }

    /**
     * Counts one hold down before its release is sent; returns whether it was the last. A hold already
     * lost (or a closed client) ends here, with the exception the release throws.
     */
    private boolean beginRelease(Hold hold) {
        String lost = hold.lostReason();
        boolean last = hold.exit() <= 0;
        if (last) {
            // Before the script runs: a renewal reply that finds the lock gone must not count as a loss.
            holds.remove(hold);
            keeper.stop(hold);
        }
        if (lost != null || calls.isClosed()) {
            if (last) {
                holds.exitGate(hold);
                // A stale release cannot hurt a later hold of the same owner: it names this grant only.
                node.giveBack(hold);
            }
            if (lost == null) {
                throw calls.closedException();
            }
            // A fixed lease is not renewed: lost means it ran out; a watchdog hold is lost by Redis or by a close.
            throw new LockLeaseExpiredException(
                    hold.info.key(),
                    lost,
                    calls.isClosed()
                            ? LockLeaseExpiredException.Loss.CLIENT_CLOSED
                            : hold.forceUnlocked
                                    ? LockLeaseExpiredException.Loss.FORCE_UNLOCKED
                                    : hold.watchdog()
                                            ? LockLeaseExpiredException.Loss.KEY_LOST
                                            : LockLeaseExpiredException.Loss.LEASE_RAN_OUT);
        }
        return last;
    }

    /** Handles the release script's answer (1 released, 0 still held, -1 not held) or {@code error}; the failure to throw, or null. */
    private @Nullable RuntimeException released(Hold hold, boolean last, long result, @Nullable Throwable error) {
        boolean ended = last;
        try {
            if (error != null) {
                RuntimeException e = RedisFailures.asLockException(error);
                node.wakeLocal(hold.kind, hold.keys); // the release may have happened: let a waiter check
                if (last && e instanceof LockUnavailableException) {
                    node.giveBack(hold);
                    return new LockUnavailableException(
                            e.getMessage() + "; the release is retried in the background until the lease"
                                    + " ends, when the lock frees itself anyway",
                            e.getCause());
                }
                return e;
            }
            if (result == 1) {
                holds.remove(hold);
                ended = true;
                holds.exitGate(hold);
                node.wakeLocal(hold.kind, hold.keys);
                events.release(hold.info, hold.heldFor(System.nanoTime()));
            } else if (result < 0) {
                holds.remove(hold);
                keeper.stop(hold);
                ended = true;
                // A fixed lease gone from Redis before it ran out here was lost by Redis, not by its length.
                boolean ranOut = !hold.watchdog() && System.nanoTime() - hold.validUntilNanos >= 0;
                String reason = ranOut
                        ? "its " + hold.lease().describe() + " ran out before unlock"
                        : "it was no longer in Redis when unlocking, before its "
                                + hold.lease().describe() + " ended";
                keeper.lost(hold, reason);
                return new LockLeaseExpiredException(
                        hold.info.key(),
                        hold.lostReason(),
                        ranOut
                                ? LockLeaseExpiredException.Loss.LEASE_RAN_OUT
                                : LockLeaseExpiredException.Loss.KEY_LOST);
            }
            return null;
        } finally {
            if (ended) {
                holds.exitGate(hold);
            }
        }
    }
}
