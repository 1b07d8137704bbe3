package dev.distlock.core.internal.leader;

import dev.distlock.core.LeaderCandidate;
import dev.distlock.core.LeaderListener;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockType;
import dev.distlock.core.internal.lease.LeaseState;
import dev.distlock.core.internal.lock.LockPort;
import dev.distlock.core.internal.redis.RedisFailures;
import dev.distlock.core.internal.support.Futures;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LeaderCandidate} over one lock port: waits for the role's lock as a handle does (pub/sub, no
 * polling), leads while it holds it and its lease clock shows more than a renewal period left, and
 * competes again after every leadership. State changes happen under this object's monitor; the listener
 * is called on the candidate's one thread, which also runs its timers (back-off, lease clock).
 */
public final class Candidate<H extends LeaseState> implements LeaderCandidate {

    private static final Logger log = LoggerFactory.getLogger(Candidate.class);

    private final String role;
    private final LockPort<H> port;
    private final LeaderListener listener;
    private final BooleanSupplier clientClosed;
    private final long leaseMs;
    private final long periodNanos;
    private final Duration operationTimeout;
    private final LeaderThread thread;

    private boolean started; // guarded by this
    private boolean closed; // guarded by this
    private final Retries retries; // guarded by this
    private @Nullable CompletableFuture<@Nullable H> pending; // guarded by this
    private @Nullable Future<?> timer; // guarded by this: the next attempt, or the lease clock while leading
    private volatile @Nullable H hold;

    private Candidate(
            String role,
            LockPort<H> port,
            LockClientOptions options,
            LeaderListener listener,
            BooleanSupplier clientClosed) {
        this.role = role;
        this.port = port;
        this.listener = listener;
        this.clientClosed = clientClosed;
        this.leaseMs = options.watchdogLease().toMillis();
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(1, leaseMs / 3));
        this.operationTimeout = options.operationTimeout();
        this.thread = new LeaderThread(role);
        this.retries = new Retries(role, TimeUnit.NANOSECONDS.toMillis(periodNanos));
    }

    /**
     * A candidate for {@code role}, whose lock ({@code leader:<role>}, of {@code type}) {@code ports} serves.
     * The lock counts as timed by its caller: a candidate may wait hours for it, which a metrics listener
     * must not record as lock waits; leaderships are counted from the candidate's listener instead.
     *
     * @throws IllegalArgumentException when the role is null or blank, or not a valid lock name
     */
    public static <H extends LeaseState> Candidate<H> create(
            @Nullable String role,
            LeaderListener listener,
            LockClientOptions options,
            LockType type,
            Function<LockInfo, LockPort<H>> ports,
            BooleanSupplier clientClosed) {
        Objects.requireNonNull(listener, "listener must not be null: use leader(role) for none");
        if (role == null || role.isBlank()) {
            throw new IllegalArgumentException("A leader role must not be " + (role == null ? "null" : "blank")
                    + ": name what the leader does, for example 'billing-consumer'");
        }
        String key = options.requireValidLockName("leader:" + role);
        return new Candidate<>(role, ports.apply(new LockInfo(key, key, type, true)), options, listener, clientClosed);
    }

    @Override
    public String role() {
        return role;
    }

    @Override
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("The leader candidate of role '" + role
                    + "' was closed: create a new one with client.leader(role) to stand again");
        }
        started = true;
        compete();
    }

    @Override
    public boolean isLeader() {
        H h = hold;
        return h != null && leads(h, System.nanoTime());
    }

    @Override
    public OptionalLong term() {
        H h = hold;
        return h != null && leads(h, System.nanoTime()) ? OptionalLong.of(h.token) : OptionalLong.empty();
    }

    /** Held, and more than one renewal period of the lease left: it steps down that long before Redis may expire it. */
    private boolean leads(H h, long now) {
        return h.isLive(now) && h.validUntilNanos - now > periodNanos;
    }

    @Override
    public synchronized boolean yieldLeadership() {
        H h = hold;
        if (h == null) {
            return false;
        }
        revoke(h, "yielded", LeaderCandidate.YIELD_BACK_OFF);
        return true;
    }

    @Override
    public void close() {
        CompletableFuture<Void> released = CompletableFuture.completedFuture(null);
        synchronized (this) {
            if (closed) {
                return;
            }
            started = false;
            closed = true;
            CompletableFuture<@Nullable H> attempt = pending;
            pending = null;
            if (attempt != null) {
                attempt.cancel(false); // gives the wait up in Redis; a grant in the same instant is given back
            }
            H h = hold;
            if (h != null) {
                released = revoke(h, "closed", null);
            }
            cancelTimer();
            thread.shutdown(); // after the revoked call was queued: it still runs
        }
        try {
            try {
                released.get(operationTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                log.debug("Leader candidate of role '{}': release at close not confirmed; the lease ends it", role, e);
            }
            thread.awaitCalls(operationTimeout); // the revoked call too, whatever the release did
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the role's lock, for as long as it takes, unless an attempt runs or this candidate leads. */
    private void compete() {
        if (!started || closed || hold != null || pending != null) {
            return;
        }
        CompletableFuture<@Nullable H> attempt;
        try {
            attempt = Futures.derive(port.acquireAsync(null, null), h -> h, this::giveBack);
        } catch (RuntimeException e) {
            attempt = CompletableFuture.failedFuture(e);
        }
        pending = attempt;
        CompletableFuture<@Nullable H> self = attempt;
        attempt.whenComplete((h, error) -> acquired(self, h, error));
    }

    private synchronized void acquired(
            CompletableFuture<@Nullable H> attempt, @Nullable H h, @Nullable Throwable error) {
        if (attempt != pending || closed) {
            if (h != null) {
                giveBack(h); // cancelled or closed meanwhile
            }
            return;
        }
        pending = null;
        if (error != null || h == null) {
            failed(error == null ? new IllegalStateException("no hold granted") : RedisFailures.unwrap(error));
            return;
        }
        retries.answered();
        hold = h;
        long term = h.token;
        long check = Math.max(TimeUnit.MILLISECONDS.toNanos(1), periodNanos / 10);
        timer = thread.schedule(() -> checkLeaseClock(h), check, check);
        thread.tell(() -> listener.granted(role, term));
        h.lost.whenComplete((reason, e) -> revokeIfHeld(h, "lost: " + reason)); // at once when lost already
    }

    private void failed(Throwable error) {
        if (error instanceof CancellationException || !started) {
            return;
        }
        if (clientClosed.getAsBoolean()) {
            started = false;
            log.info("Leader candidate of role '{}' stops competing: its client was closed", role);
            return;
        }
        long delayMs = retries.failed(error);
        timer = thread.schedule(this::retry, TimeUnit.MILLISECONDS.toNanos(delayMs), 0);
    }

    private synchronized void retry() {
        timer = null;
        compete();
    }

    private synchronized void checkLeaseClock(H h) {
        if (hold == h && !leads(h, System.nanoTime())) {
            revokeIfHeld(
                    h,
                    "no renewal was confirmed for " + (leaseMs - TimeUnit.NANOSECONDS.toMillis(periodNanos))
                            + " ms of the " + leaseMs + " ms lease (Redis unreachable, or this process paused):"
                            + " stepped down before the lock can expire in Redis");
        }
    }

    private synchronized void revokeIfHeld(H h, String reason) {
        if (hold == h) {
            revoke(h, reason, Duration.ZERO);
        }
    }

    /**
     * Ends the leadership of {@code h}: tells the listener, releases the lock, and competes again after
     * {@code backOff} ({@code null}: never).
     */
    private CompletableFuture<Void> revoke(H h, String reason, @Nullable Duration backOff) {
        hold = null;
        cancelTimer();
        long term = h.token;
        thread.tell(() -> listener.revoked(role, term, reason));
        CompletableFuture<Void> released = giveBack(h);
        if (backOff != null && backOff.isZero()) {
            compete();
        } else if (backOff != null) {
            timer = thread.schedule(this::retry, backOff.toNanos(), 0);
        }
        return released;
    }

    /** Releases a hold; a lost one fails to, as expected, and a release Redis did not confirm ends with its lease. */
    private CompletableFuture<Void> giveBack(@Nullable H h) {
        if (h == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> released;
        try {
            released = port.releaseAsync(h, Duration.ZERO);
        } catch (RuntimeException e) {
            released = CompletableFuture.failedFuture(e);
        }
        return released.whenComplete((ok, e) -> {
            if (e != null) {
                log.debug(
                        "Leader candidate of role '{}': lock of term {} not released: {}", role, h.token, e.toString());
            }
        });
    }

    private void cancelTimer() {
        Future<?> t = timer;
        timer = null;
        if (t != null) {
            t.cancel(false);
        }
    }

    @Override
    public String toString() {
        H h = hold;
        return "LeaderCandidate[" + role + (h != null && isLeader() ? ", leader, term " + h.token : "") + "]";
    }
}
