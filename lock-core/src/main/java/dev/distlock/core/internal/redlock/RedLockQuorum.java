package dev.distlock.core.internal.redlock;

import dev.distlock.core.LockException;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.internal.engine.Grant;
import dev.distlock.core.internal.engine.RedisNode;
import dev.distlock.core.internal.engine.ReentrantKind;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redlock.NodeCalls.Reply;
import dev.distlock.core.internal.support.Futures;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The N independent nodes of a RedLock and the majority rule: each operation runs on every node at
 * once, each node bounded by a timeout well below the lease, and returns as soon as a majority
 * decided. Holds, waiting and events are {@link RedLockEngine}'s.
 */
final class RedLockQuorum {

    private final List<RedisNode> nodes;
    /** How many nodes must agree: a majority, N/2+1. */
    final int majority;

    RedLockQuorum(List<RedisNode> nodes) {
        this.nodes = List.copyOf(nodes);
        this.majority = nodes.size() / 2 + 1;
    }

    int size() {
        return nodes.size();
    }

    List<LockKeys> keys(String name) {
        return nodes.stream().map(n -> n.keys(name)).toList();
    }

    /** One round's outcome: a grant (token, valid until), or how many nodes answered and the first error. */
    record Attempt(boolean granted, long token, long validUntilNanos, int answered, Throwable error) {}

    /** One RedLock round: all nodes in parallel, then the fence raise on the granting nodes; released everywhere when refused. */
    Attempt acquire(List<LockKeys> keys, String owner, String grantId, long leaseMs) {
        return acquireAsync(keys, owner, grantId, leaseMs).join();
    }

    /** {@link #acquire} without blocking; every node call is bounded by {@link #nodeTimeoutNanos}. */
    CompletableFuture<Attempt> acquireAsync(List<LockKeys> keys, String owner, String grantId, long leaseMs) {
        long start = System.nanoTime();
        long timeout = nodeTimeoutNanos(leaseMs);
        return NodeCalls.until(
                        nodes.size(),
                        // Derived so that the per-node timeout's cancel reaches the command (see NodeCalls.until). A
                        // grant
                        // the node made before the cancel bears this round's owner and grant id, like the others: the
                        // round's release (or, granted, the hold's) covers it on every node.
                        i -> Futures.derive(
                                nodes.get(i)
                                        .acquire(
                                                ReentrantKind.INSTANCE,
                                                keys.get(i),
                                                nodes.get(i).acquireArgs(owner, leaseMs, 0, grantId)),
                                reply -> Grant.of(reply, grantId, start),
                                late -> {}),
                        timeout,
                        RedLockQuorum::grant,
                        majority)
                .thenCompose(replies -> {
                    List<Integer> granted = new ArrayList<>();
                    long token = Long.MIN_VALUE;
                    for (int i = 0; i < replies.size(); i++) {
                        Reply<Grant> r = replies.get(i);
                        if (grant(r)) {
                            granted.add(i);
                            token = Math.max(token, r.value().token());
                        }
                    }
                    if (granted.size() < majority) {
                        return refused(keys, owner, grantId, leaseMs, replies);
                    }
                    // The token is the largest of the granting nodes' tokens, written back to their counters
                    // while we hold the lock there. Any later grant needs a majority too, and two majorities
                    // share at least one node; on that node the later grant came after ours ended, so its token
                    // starts from at least ours and is larger, and its maximum is larger than ours.
                    // Without the write-back the maximum alone would not do: a node with a high counter that
                    // is in our majority but not in the next could make our token the larger one.
                    long grantToken = token;
                    return NodeCalls.all(
                                    granted.size(),
                                    j -> nodes.get(granted.get(j))
                                            .raiseFence(keys.get(granted.get(j)), owner, grantToken),
                                    timeout)
                            .thenCompose(raised -> {
                                long validUntil = start + TimeUnit.MILLISECONDS.toNanos(leaseMs) - driftNanos(leaseMs);
                                if (NodeCalls.count(raised, 1L) >= majority && System.nanoTime() - validUntil < 0) {
                                    return CompletableFuture.completedFuture(new Attempt(
                                            true, grantToken, validUntil, NodeCalls.answered(replies), null));
                                }
                                return refused(keys, owner, grantId, leaseMs, replies);
                            });
                });
    }

    /**
     * Releases on every node, also those that seemed to refuse: their grant may have been lost on the
     * way back. Completes once that is done, so that it reaches each node before this owner's next attempt.
     */
    private CompletableFuture<Attempt> refused(
            List<LockKeys> keys, String owner, String grantId, long leaseMs, List<Reply<Grant>> replies) {
        return releaseAsync(keys, owner, grantId, leaseMs)
                .thenApply(released ->
                        new Attempt(false, 0, 0, NodeCalls.answered(replies), NodeCalls.firstError(replies)));
    }

    private static boolean grant(Reply<Grant> reply) {
        return reply.answered() && reply.value().granted();
    }

    /** Releases on every node; returns once a majority released (or still holds a count), else once all answered. */
    List<Reply<Long>> release(List<LockKeys> keys, String owner, String grantId, long leaseMs) {
        return releaseAsync(keys, owner, grantId, leaseMs).join();
    }

    /**
     * {@link #release} without blocking. A node that did not answer in time (down, or its reply lost) is
     * given the release again in the background until the lease ends, so a grant it made is not left
     * there for the whole lease; the release names the grant, so it never frees a later one.
     */
    CompletableFuture<List<Reply<Long>>> releaseAsync(List<LockKeys> keys, String owner, String grantId, long leaseMs) {
        return NodeCalls.until(
                        nodes.size(),
                        i -> nodes.get(i).release(ReentrantKind.INSTANCE, keys.get(i), owner, grantId, 1),
                        nodeTimeoutNanos(leaseMs),
                        r -> r.answered() && r.value() >= 0,
                        majority)
                .thenApply(replies -> {
                    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(leaseMs);
                    for (int i = 0; i < replies.size(); i++) {
                        if (!replies.get(i).answered()) {
                            nodes.get(i).giveBack(ReentrantKind.INSTANCE, keys.get(i), owner, grantId, until);
                        }
                    }
                    return replies;
                });
    }

    /** Renews on every node; completes once a majority renewed, else once all answered. */
    CompletableFuture<List<Reply<Long>>> renew(List<LockKeys> keys, String owner, String grantId, long leaseMs) {
        return NodeCalls.until(
                nodes.size(),
                i -> nodes.get(i).renew(ReentrantKind.INSTANCE, keys.get(i), owner, grantId, leaseMs),
                nodeTimeoutNanos(leaseMs),
                r -> r.answered() && r.value() == 1L,
                majority);
    }

    /** Deletes the lock on every node; whether any node had it. */
    boolean forceRelease(List<LockKeys> keys, long leaseMs) {
        String request = nodes.get(0).requestId();
        List<Reply<Long>> replies = NodeCalls.await(
                nodes.size(), i -> nodes.get(i).forceRelease(keys.get(i), false, request), nodeTimeoutNanos(leaseMs));
        requireMajority(replies, "force-unlocking", keys);
        return NodeCalls.count(replies, 1L) > 0;
    }

    /** The PTTL (ms) that a majority of nodes still exceed, or -1 when fewer than a majority hold the key. */
    long majorityTtl(List<LockKeys> keys, long leaseMs) {
        List<Reply<Long>> replies =
                NodeCalls.await(nodes.size(), i -> nodes.get(i).pttl(keys.get(i)), nodeTimeoutNanos(leaseMs));
        requireMajority(replies, "reading", keys);
        List<Long> ttls = replies.stream()
                .filter(r -> r.answered() && r.value() >= 0)
                .map(Reply::value)
                .sorted(Comparator.reverseOrder())
                .toList();
        return ttls.size() >= majority ? ttls.get(majority - 1) : -1;
    }

    private void requireMajority(List<? extends Reply<?>> replies, String doing, List<LockKeys> keys) {
        int answered = NodeCalls.answered(replies);
        if (answered < majority) {
            throw new LockException(
                    "RedLock " + keys.get(0).lock() + ": only " + answered + " of " + nodes.size()
                            + " Redis nodes answered while " + doing + ", a majority of " + majority + " is needed",
                    NodeCalls.firstError(replies));
        }
    }

    /** The failure of an acquire {@code attempt} on {@code info} that fewer than a majority answered. */
    LockUnavailableException noQuorum(LockInfo info, Attempt attempt) {
        return new LockUnavailableException(
                "RedLock '" + info.key() + "': only " + attempt.answered() + " of " + size()
                        + " Redis nodes answered, a majority of " + majority
                        + " is needed; check that the nodes are up and reachable",
                attempt.error());
    }

    /**
     * Each node gets a hundredth of the lease, 50 to 500 ms, and never more than a third of it: well
     * below the lease, so that a slow node cannot eat the validity of a grant.
     */
    static long nodeTimeoutNanos(long leaseMs) {
        long ms = Math.min(leaseMs / 3, Math.min(500, Math.max(50, leaseMs / 100)));
        return TimeUnit.MILLISECONDS.toNanos(Math.max(1, ms));
    }

    /** Clock drift allowance: 1% of the lease plus 2 ms, as the RedLock description suggests. */
    static long driftNanos(long leaseMs) {
        return TimeUnit.MILLISECONDS.toNanos(leaseMs / 100 + 2);
    }
}
