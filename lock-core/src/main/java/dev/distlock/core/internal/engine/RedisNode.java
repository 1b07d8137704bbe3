package dev.distlock.core.internal.engine;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedLockClient;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.RedisCalls;
import dev.distlock.core.internal.redis.RedisPort;
import dev.distlock.core.internal.redis.WakeupHub;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.internal.redis.script.ScriptCalls;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The scripts of one Redis (standalone, Sentinel or Cluster) as calls on one lock each, with the
 * arguments every call needs filled in. {@link LockEngine} runs them bounded and retried; a
 * {@link RedLockClient} uses each node's through this narrow port as single attempts (no waiting,
 * no local holds, no events). Replies as documented on {@link LockKind}.
 */
public final class RedisNode {

    private final RedisPort redis;
    private final ScriptCalls scripts;
    /** The same scripts on the renewal connection. */
    private final ScriptCalls renewals;

    private final RedisCalls calls;
    private final WakeupHub hub;
    private final String keyPrefix;
    private final long fenceTtlMs;
    /** How long Redis remembers a last release, so that the same release sent again still answers "released". */
    private final long releaseNoteTtlMs;

    private final AtomicLong requests = new AtomicLong();
    /** Fencing tokens a new reentrant grant reserves: its own plus the local hand-offs allowed. */
    private final int tokenBlock;
    /** How long a release reserves a lock for another waiting client: {@link #RESERVE_MS} with lock cohorting on, else 0. */
    private final long reserveMs;
    /**
     * How owner ids of this client begin (threads and handles alike): a fair release hands their grants
     * over in-process. Empty when replica acknowledgements are asked for: a grant must then be taken up by
     * the waiter's own attempt, which waits for the replicas.
     */
    private final String localOwners;
    /** How many waiters of this client a fair grant may pass down in-process (lock cohorting), 0 for none. */
    private final int fairCohortMax;
    /** Fair grants handed to this client's waiters in-process. */
    final GrantOffers offers;

    /**
     * How long a release reserves a lock for another client that waits for it. Long enough for that
     * client's waiter to wake on the release message and ask (a round trip and a thread wake-up), short
     * enough that a waiter that has meanwhile given up costs little.
     */
    static final long RESERVE_MS = 50;

    /**
     * The longest TTL a reentrant release gives a grant it makes to another client's waiting request and
     * carries in the wake-up message: what a waiter that died (or stalled) meanwhile can keep the lock from
     * the others, of the order of a fair waiter's queue deadline (a recheck plus its margin). Its waiter renews
     * the grant soon after taking it up (it is shorter than a watchdog lease); a waiter with a longer fixed
     * lease takes it up with an attempt instead, which sets that lease. Not shorter: a release that a slot
     * migration held up for more than 2 s found such a grant expired (ClusterReshardingTest, loaded host).
     */
    static final long MESSAGE_GRANT_MS = 5000;

    RedisNode(RedisPort redis, RedisCalls calls, WakeupHub hub, HoldTable holds, LockClientOptions options) {
        this.redis = redis;
        this.scripts = redis.scripts();
        this.renewals = redis.renewals();
        this.calls = calls;
        this.hub = hub;
        this.keyPrefix = options.keyPrefix();
        this.fenceTtlMs = options.fencingCounterTtl().toMillis();
        this.releaseNoteTtlMs = Math.max(1000, 2 * options.operationTimeout().toMillis());
        this.tokenBlock = options.localHandOffs() + 1;
        this.reserveMs = options.localHandOffs() > 0 ? RESERVE_MS : 0;
        boolean handsOver = options.replicaAcks() == 0;
        this.localOwners = handsOver ? hub.message(false) + ':' : "";
        this.fairCohortMax = handsOver ? options.localHandOffs() : 0;
        this.offers = new GrantOffers(hub, holds, handsOver && GrantOffers.fromMessages(options));
    }

    public LockKeys keys(String name) {
        return LockKeys.of(keyPrefix, name);
    }

    /** The arguments of an acquire attempt; {@code held} 0 for a new hold. */
    public ScriptArgs.Acquire acquireArgs(String owner, long leaseMs, int held, String grantId) {
        return new ScriptArgs.Acquire(owner, leaseMs, fenceTtlMs, held, grantId, 0, tokenBlock);
    }

    public CompletableFuture<List<Object>> acquire(LockKind kind, LockKeys keys, ScriptArgs.Acquire args) {
        return kind.acquire(scripts, keys, args);
    }

    /**
     * Reserves the next block of fencing tokens for the reentrant grant {@code baton} passes on, unless another
     * client waits for the lock: the block's first and last token, or {@code [0, 0]}.
     */
    CompletableFuture<List<Object>> refill(LocalGates.Baton baton) {
        return ReentrantKind.refill(scripts, baton.keys(), baton.redisOwner(), baton.grantId(), tokenBlock, fenceTtlMs);
    }

    /** Releases one of {@code held} holds of grant {@code grantId}: 1 released, 0 still held, -1 not held by this grant. */
    public CompletableFuture<Long> release(LockKind kind, LockKeys keys, String owner, String grantId, int held) {
        return release(kind, keys, owner, grantId, held, 0, false, "", releaseCall());
    }

    /**
     * One release call, however often it is sent (Lettuce after a reconnect, or our retries): its id, and
     * when it began, before its first sending: the lease of a grant an earlier sending made runs from there.
     */
    record ReleaseCall(long id, long startedNanos) {}

    /** A new {@link ReleaseCall}, beginning now. */
    ReleaseCall releaseCall() {
        return new ReleaseCall(requests.incrementAndGet(), System.nanoTime());
    }

    /**
     * As {@link #release(LockKind, LockKeys, String, String, int)}; a last release leaves the lock taken
     * by nobody for {@code keepMs} more (0: frees it), for kinds that {@link LockKind#keepsAfterRelease}:
     * never past the lease it has left unless {@code keepPastLease} (a watchdog lease, which has no end of
     * its own). {@code served}: for a fair grant that was passed down (or over), the waiters of this client
     * named as {@link FairCohort#served()} says ("" for none). {@code call}: the same for every
     * time this release is sent, so that a fair grant made by a run whose reply was lost is still handed on.
     */
    public CompletableFuture<Long> release(
            LockKind kind,
            LockKeys keys,
            String owner,
            String grantId,
            int held,
            long keepMs,
            boolean keepPastLease,
            String served,
            ReleaseCall call) {
        long sentAt = System.nanoTime(); // the lease of a grant this sending makes runs from no earlier than this
        return kind.release(
                scripts,
                keys,
                new ScriptArgs.Release(
                        owner,
                        grantId,
                        held,
                        hub.message(kind.wakesAllOnRelease()),
                        releaseNoteTtlMs,
                        keepMs,
                        keepPastLease,
                        reserveMs,
                        MESSAGE_GRANT_MS,
                        fenceTtlMs,
                        localOwners,
                        fairCohortMax,
                        served,
                        call.id(),
                        (waiter, token, waiterGrant, leaseMs, cohort, earlier) -> handOver(
                                kind,
                                keys,
                                waiter,
                                waiterGrant,
                                token,
                                earlier ? call.startedNanos() : sentAt,
                                leaseMs,
                                cohort)));
    }

    /**
     * Hands the grant a fair release made in Redis to {@code waiter}'s request {@code waiterGrant}, a
     * request of this client, to that request (its lease runs from {@code fromNanos}); gives it back
     * when that request neither waits for it nor took it up itself.
     */
    public void handOver(
            LockKind kind,
            LockKeys keys,
            String waiter,
            String waiterGrant,
            long token,
            long fromNanos,
            long leaseMs,
            FairCohort cohort) {
        if (!offers.granted(kind, keys, waiter, waiterGrant, token, fromNanos, cohort)) {
            // That request stopped waiting meanwhile; its leave gives the grant back too, whichever lands first
            // (both name the grant).
            giveBack(kind, keys, waiter, waiterGrant, fromNanos + leaseMs * 1_000_000);
        }
    }

    /**
     * Gives back grant {@code grantId} of {@code owner} whenever Redis answers, until {@code until}: for
     * a grant whose reply never came, or a release nobody waits for. It names the grant, so it can
     * never release a later hold of the same owner, and local waiters are woken when it lands.
     */
    public void giveBack(LockKind kind, LockKeys keys, String owner, String grantId, long until) {
        giveBack(kind, keys, owner, grantId, until, "");
    }

    /** Gives back the grant {@code hold} stands on (see above), naming the waiters it was passed down to. */
    public void giveBack(Hold hold) {
        giveBack(hold.kind, hold.keys, hold.redisOwner, hold.grantId, hold.validUntilNanos, hold.served());
    }

    /** As {@link #giveBack(LockKind, LockKeys, String, String, long)}, for a fair grant passed down {@code served}. */
    public void giveBack(LockKind kind, LockKeys keys, String owner, String grantId, long until, String served) {
        if (until - System.nanoTime() <= 0) {
            return; // the lease has ended: Redis has let the grant go already
        }
        ReleaseCall call = releaseCall();
        calls.inBackground(
                () -> release(kind, keys, owner, grantId, 1, 0, false, served, call)
                        .whenComplete((result, error) -> wakeLocal(kind, keys)),
                until,
                "giving back",
                keys);
    }

    /** Lets a local waiter (all of them for shared kinds) look at the lock again. */
    void wakeLocal(LockKind kind, LockKeys keys) {
        hub.wakeLocal(keys.channel(), kind.wakesAllOnRelease());
    }

    /** A watchdog renewal, sent on the client's renewal connection. */
    public CompletableFuture<Long> renew(LockKind kind, LockKeys keys, String owner, String grantId, long leaseMs) {
        return kind.renew(renewals, keys, owner, grantId, leaseMs);
    }

    /**
     * Leaves a fair queue (whatever the kind does on giving up; see {@link LockKind#leavesWhenGivingUp()}),
     * giving back a grant made meanwhile under {@code grantId} (empty for none: a re-entry).
     */
    CompletableFuture<?> gaveUp(LockKind kind, LockKeys keys, String owner, String waitId, String grantId) {
        return kind.gaveUp(
                scripts,
                keys,
                new ScriptArgs.Leave(
                        owner, waitId, grantId, hub.message(kind.wakesAllOnRelease()), fenceTtlMs, releaseNoteTtlMs));
    }

    /** Raises the fencing counter of {@code keys} to at least {@code token} while {@code owner} holds it: 1, else 0. */
    public CompletableFuture<Long> raiseFence(LockKeys keys, String owner, long token) {
        return scripts.integer(
                LockScript.RAISE_FENCE,
                new String[] {keys.lock(), keys.fence()},
                owner,
                Long.toString(token),
                ScriptArgs.decimal(fenceTtlMs));
    }

    /** A new id for a request that must be recognised when Redis runs it twice. */
    public String requestId() {
        return hub.message(false) + '-' + requests.incrementAndGet();
    }

    /**
     * Deletes the lock whoever holds it and wakes its waiters: 1 deleted, 0 it was free. The same
     * {@code requestId} sent again answers as the first run and deletes nothing.
     */
    public CompletableFuture<Long> forceRelease(LockKeys keys, boolean wakeAll, String requestId) {
        return scripts.integer(
                LockScript.FORCE_RELEASE,
                new String[] {keys.lock(), keys.note("~force:" + requestId)},
                keys.channel(),
                hub.message(wakeAll),
                ScriptArgs.decimal(releaseNoteTtlMs));
    }

    /** PTTL of the lock key: -2 when absent. */
    public CompletableFuture<Long> pttl(LockKeys keys) {
        return redis.pttl(keys.lock());
    }

    CompletableFuture<Long> exists(LockKeys keys) {
        return redis.exists(keys.lock());
    }

    CompletableFuture<Long> usedPermits(LockKeys keys) {
        return SemaphoreKind.used(scripts, keys);
    }

    /**
     * The id of the Redis process that serves this node, which tells two nodes that are one server apart
     * whatever address or database each was reached by; {@code null} on Cluster (several processes, none
     * of them the node).
     */
    public CompletableFuture<@Nullable String> serverRunId() {
        return redis.serverRunId();
    }

    /** WAIT for {@code replicas} acknowledgements; a Cluster, where WAIT cannot be sent, is refused at start. */
    CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMs) {
        return redis.waitForReplicas(replicas, timeoutMs);
    }
}
