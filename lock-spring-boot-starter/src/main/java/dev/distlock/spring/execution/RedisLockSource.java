package dev.distlock.spring.execution;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockType;
import dev.distlock.core.RedLockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.springframework.util.function.SingletonSupplier;

/** Locks on the application's Redis through {@link LockClient}, and RedLocks through {@link RedLockClient}. */
public final class RedisLockSource implements LockSource {

    private final Supplier<LockClient> client;
    private final Supplier<RedLockClient> redLockSupplier;
    /** The views of {@link #withMaxHold}, one per cap: methods name few. */
    private final Map<Duration, RedisLockSource> capped = new ConcurrentHashMap<>();

    /**
     * Both clients are looked up on first use: advisors are created early, before the Redis connection
     * should be. {@code redLockClient} gives {@code null} when distlock.redlock.nodes is not set.
     */
    public RedisLockSource(Supplier<LockClient> client, Supplier<RedLockClient> redLockClient) {
        // The executor times its calls itself: the metrics listener leaves their acquisitions and releases to it.
        this.client = SingletonSupplier.of(() -> client.get().timedByCaller());
        this.redLockSupplier = SingletonSupplier.of(() -> {
            RedLockClient redLock = redLockClient.get();
            return redLock == null ? null : redLock.timedByCaller();
        });
    }

    private RedisLockSource(RedisLockSource source, Duration maxHold) {
        this.client = SingletonSupplier.of(() -> source.client().withMaxHold(maxHold));
        this.redLockSupplier = SingletonSupplier.of(() -> {
            RedLockClient redLock = source.redLockSupplier.get();
            return redLock == null ? null : redLock.withMaxHold(maxHold);
        });
    }

    @Override
    public LockSource withMaxHold(Duration maxHold) {
        return capped.computeIfAbsent(maxHold, cap -> new RedisLockSource(this, cap));
    }

    @Override
    public RedisLock lock(LockType type, boolean redlock, String key, String label) {
        return switch (redlock ? LockType.REDLOCK : type) {
            case REENTRANT -> client().getLock(key, label);
            case FAIR -> client().getFairLock(key, label);
            case READ -> client().getReadWriteLock(key, label).readLock();
            case WRITE -> client().getReadWriteLock(key, label).writeLock();
            case REDLOCK -> redLock().getLock(key, label);
            case SEMAPHORE, FAIR_SEMAPHORE ->
                throw new IllegalArgumentException(
                        "a semaphore on '" + key + "' needs its number of permits: call permits(...)");
        };
    }

    @Override
    public RedisLock permits(LockType type, String key, int permits, String label) {
        LockClient c = client();
        return new PermitsLock(
                type == LockType.FAIR_SEMAPHORE ? c.getFairSemaphore(key, permits) : c.getSemaphore(key, permits),
                c.getLock(key, label));
    }

    @Override
    public RedisMultiLock multiLock(List<String> keys, String label) {
        return client().getMultiLock(keys, label);
    }

    @Override
    public boolean forceUnlock(String key, String type) {
        return switch (type) {
            case "REDLOCK" -> redLock().getLock(key).forceUnlock();
            case "READ", "WRITE" -> client().getReadWriteLock(key).writeLock().forceUnlock();
            // the number of permits plays no part in freeing them all
            case "SEMAPHORE", "FAIR_SEMAPHORE" -> client().getSemaphore(key, 1).forceReleaseAll();
            default -> lock(LockType.valueOf(type), false, key, key).forceUnlock();
        };
    }

    @Override
    public int activeHolds() {
        return client().activeHolds();
    }

    @Override
    public List<HeldLock> heldLocks() {
        List<HeldLock> all = new ArrayList<>(client().heldLocks());
        RedLockClient redLock = redLockSupplier.get();
        if (redLock != null) {
            all.addAll(redLock.heldLocks());
        }
        return all;
    }

    private RedLockClient redLock() {
        RedLockClient redLock = redLockSupplier.get();
        if (redLock == null) {
            throw new IllegalStateException(
                    "RedLock needs distlock.redlock.nodes: list at least 3 independent Redis masters there");
        }
        return redLock;
    }

    /** One bounded round trip on the lock client's own connection (EXISTS on a key no lock uses). */
    @Override
    public void check() {
        client().getLock(HEALTH_KEY).isLocked();
    }

    /** A name reserved for the check; only ever read (EXISTS), never locked. */
    static final String HEALTH_KEY = "distlock-health-check";

    private LockClient client() {
        return client.get();
    }
}
