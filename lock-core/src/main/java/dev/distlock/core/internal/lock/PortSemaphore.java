package dev.distlock.core.internal.lock;

import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisSemaphore;
import dev.distlock.core.internal.lease.LeaseState;
import dev.distlock.core.internal.support.Durations;
import dev.distlock.core.internal.support.Futures;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.IntSupplier;
import org.jspecify.annotations.Nullable;

/**
 * A semaphore over an engine's ports: one port per number of permits a grant takes, each grant an owner
 * of its own (a handle), so permits are released from any thread.
 */
public final class PortSemaphore<H extends LeaseState> implements RedisSemaphore {

    /** Numbers the grants of blocking acquires, which name their owner themselves. */
    private static final AtomicLong GRANTS = new AtomicLong();

    private final String key;
    private final int permits;
    private final boolean fair;
    private final IntFunction<LockPort<H>> ports;
    private final IntSupplier used;

    /**
     * @param ports the port of grants of {@code n} permits, for {@code n} in 1 to {@code permits}
     * @param used the permits held now, read from Redis
     */
    public PortSemaphore(String key, int permits, boolean fair, IntFunction<LockPort<H>> ports, IntSupplier used) {
        this.key = key;
        this.permits = permits;
        this.fair = fair;
        this.ports = ports;
        this.used = used;
    }

    /** Checks a semaphore's number of permits before it is used. */
    public static int requirePermits(int permits, String key) {
        if (permits < 1) {
            throw new IllegalArgumentException("semaphore '" + key + "' must have at least 1 permit, got " + permits
                    + ": declare how many holders may run at once");
        }
        return permits;
    }

    @Override
    public String getKey() {
        return key;
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public boolean isFair() {
        return fair;
    }

    @Override
    public LockHandle acquire() throws InterruptedException {
        return acquire(1);
    }

    @Override
    public LockHandle acquire(int n) throws InterruptedException {
        return Objects.requireNonNull(acquire(n, null, null));
    }

    @Override
    public Optional<LockHandle> tryAcquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(1, waitTime, null);
    }

    @Override
    public Optional<LockHandle> tryAcquire(int n, Duration waitTime, @Nullable Duration lease)
            throws InterruptedException {
        return Optional.ofNullable(acquire(n, Durations.waitOrForever(waitTime, "waitTime"), lease));
    }

    private @Nullable LockHandle acquire(int n, @Nullable Duration wait, @Nullable Duration lease)
            throws InterruptedException {
        LockPort<H> port = port(n);
        Durations.requireLease(lease, key);
        H hold = port.acquire(port.clientId() + ":s" + GRANTS.incrementAndGet(), wait, lease, true);
        return hold == null ? null : new PortHandle<>(port, hold);
    }

    @Override
    public CompletionStage<LockHandle> acquireAsync(int n) {
        return Futures.derive(
                start(n, null, null),
                granted -> granted.orElseThrow(),
                granted -> granted.ifPresent(LockHandle::unlockAsync));
    }

    @Override
    public CompletionStage<Optional<LockHandle>> tryAcquireAsync(int n, Duration waitTime, @Nullable Duration lease) {
        return start(n, Durations.waitOrForever(waitTime, "waitTime"), lease);
    }

    private CompletableFuture<Optional<LockHandle>> start(int n, @Nullable Duration wait, @Nullable Duration lease) {
        LockPort<H> port = port(n);
        Durations.requireLease(lease, key);
        return PortHandle.of(port, port.acquireAsync(wait, lease));
    }

    private LockPort<H> port(int n) {
        if (n < 1 || n > permits) {
            throw new IllegalArgumentException("semaphore '" + key + "' has " + permits + " permits; a grant takes"
                    + " 1 to " + permits + ", got " + n);
        }
        return ports.apply(n);
    }

    @Override
    public int availablePermits() {
        return Math.max(0, permits - used.getAsInt());
    }

    @Override
    public boolean forceReleaseAll() {
        return ports.apply(1).forceUnlock();
    }

    @Override
    public String toString() {
        return (fair ? "FairSemaphore" : "Semaphore") + "[" + key + ", " + permits + " permits]";
    }
}
