package dev.distlock.spring.local;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockException;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockType;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.spring.execution.LockSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code distlock.mode=local}: locks that live in this JVM only, with the same API, kinds,
 * fencing tokens, listener events and exceptions as the Redis locks. NOT distributed: two instances
 * of the application do not exclude each other. For tests and single-instance development.
 */
public final class LocalLocks implements LockSource, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalLocks.class);

    private final Map<String, LocalLockState> states = new ConcurrentHashMap<>();
    /** One counter for every name: tokens grow per name too, and survive a name's state being dropped while free. */
    private final AtomicLong tokens = new AtomicLong();

    private final List<LockListener> listeners;
    private final Duration watchdogLease;
    private final boolean interruptOnLeaseLost;
    /** The options' name rules: the length limit, and what lock-core refuses in a name. */
    private final LockClientOptions names;
    /** One timer thread for every fixed lease, never one per lock. */
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "distlock-local-lease");
        t.setDaemon(true);
        return t;
    });

    /**
     * Completes handles' acquisitions that were granted or gave up while another call held a lock's monitor:
     * their callbacks run here, never under the monitor nor nested in the releasing call's stack. A thread is
     * added only while earlier completions still run.
     */
    private final ExecutorService deliveries = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "distlock-local-grant");
        t.setDaemon(true);
        return t;
    });

    /**
     * Takes from {@code options} what the Redis client would: its listeners (told of acquisitions, releases
     * and lost leases), its watchdog lease (what {@code remainingLease()} shows for holds without a fixed
     * lease), whether a holder whose fixed lease ran out is interrupted, and its lock-name rules.
     */
    public LocalLocks(LockClientOptions options) {
        this.names = options;
        this.listeners = options.listeners();
        this.watchdogLease = options.watchdogLease();
        this.interruptOnLeaseLost = options.interruptOnLeaseLost();
    }

    @Override
    public RedisLock lock(LockType type, boolean redlock, String key, String label) {
        // A RedLock here is a reentrant lock of this JVM, reported as REDLOCK as in Redis mode (metrics, listeners).
        // timed by the executor, the only caller of a local lock
        LockType kind = redlock ? LockType.REDLOCK : type;
        return new LocalLock(this, new LockInfo(requireName(key), label == null ? key : label, kind, true));
    }

    @Override
    public RedisMultiLock multiLock(List<String> keys, String label) {
        if (keys == null || keys.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock name");
        }
        List<String> sorted =
                keys.stream().map(this::requireName).distinct().sorted().toList();
        return RedisMultiLock.of(sorted.stream()
                .map(k -> lock(LockType.REENTRANT, false, k, label))
                .toList());
    }

    @Override
    public boolean forceUnlock(String key, String type) {
        return with(key, LocalLockState::forceUnlock);
    }

    /** Nothing to reach: local locks are always available. */
    @Override
    public void check() {}

    /** None: in local mode every hold is taken through the starter, which lists its own. */
    @Override
    public List<dev.distlock.core.HeldLock> heldLocks() {
        return List.of();
    }

    @Override
    public int activeHolds() {
        return states.values().stream().mapToInt(LocalLockState::activeHolds).sum();
    }

    /** Runs {@code call} on the state of {@code name}, dropping the state afterwards when nobody holds, waits for or lost it. */
    <T> T with(String name, Function<LocalLockState, T> call) {
        LocalLockState state = states.compute(name, (n, s) -> {
            LocalLockState used = s != null ? s : new LocalLockState(n, this);
            used.users++;
            return used;
        });
        try {
            return call.apply(state);
        } finally {
            states.computeIfPresent(name, (n, s) -> --s.users == 0 && s.idle() ? null : s);
        }
    }

    /** Threads waiting in the fair queue of {@code name}; for tests. */
    int queued(String name) {
        return with(name, LocalLockState::queued);
    }

    long nextToken() {
        return tokens.incrementAndGet();
    }

    Duration watchdogLease() {
        return watchdogLease;
    }

    List<LockListener> listeners() {
        return listeners;
    }

    ScheduledFuture<?> schedule(Runnable task, long delayMs) {
        return timer.schedule(task, delayMs, TimeUnit.MILLISECONDS);
    }

    void deliver(Runnable completion) {
        deliveries.execute(completion);
    }

    /** Releases a handle's hold that nobody took: its acquisition was cancelled as it was granted. */
    void giveBack(LocalLockState.Hold hold) {
        try {
            with(hold.info.key(), state -> {
                state.releaseHandle(hold, 0);
                return null;
            });
        } catch (RuntimeException e) { // lost meanwhile (lease ran out, force-unlocked): reported already
            log.debug(
                    "Lock '{}' granted to a cancelled acquisition was no longer held: {}",
                    hold.info.key(),
                    e.toString());
        }
    }

    /** Reports a lost hold as the Redis client does: WARN, listeners, and the interrupt when configured. */
    void leaseLost(LocalLockState.Hold hold, String reason) {
        log.warn(
                "Lock '{}' was lost while held (local mode, fencing token {}): {}",
                hold.info.key(),
                hold.token,
                reason);
        listeners.forEach(l -> l.onLeaseLost(hold.info, reason));
        deliver(() -> hold.lost.complete(reason)); // off the monitor: a handle's owner may release at once
        if (interruptOnLeaseLost && hold.owner instanceof Thread thread) {
            thread.interrupt(); // a handle's owner learns it from leaseLost() instead
        }
    }

    /** lock-core's name rules, so local mode fails where Redis mode would. */
    private String requireName(String name) {
        return names.requireValidLockName(name);
    }

    @Override
    public void close() {
        LockException closed = new LockException(
                "The local locks are closed (the application is shutting down): no lock is granted any more", null);
        states.values().forEach(state -> state.drainWaiters().forEach(w -> w.granted.completeExceptionally(closed)));
        timer.shutdownNow();
        deliveries.shutdownNow();
    }
}
