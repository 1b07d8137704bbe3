package dev.distlock.spring.local;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LeaderCandidate;
import dev.distlock.core.LeaderListener;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockType;
import dev.distlock.core.RedLockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.spring.execution.LockSource;
import dev.distlock.spring.execution.RedisLockSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * {@code distlock.mode=local}: locks that live in this JVM only. They are lock-core's own locks on an
 * in-process store ({@link LockClient#local}) that runs the same scripts as Redis, so kinds, fencing
 * tokens, leases and the watchdog, listener events, metrics and exceptions are those of Redis mode; a
 * RedLock is a RedLock over three such stores. NOT distributed: two instances of the application do not
 * exclude each other. For tests and single-instance development.
 */
public final class LocalLocks implements LockSource, AutoCloseable {

    private final LockClientOptions options;
    private final LockClient client;
    private final LockSource source;
    /** The RedLock's nodes and the RedLock itself, made on first use: most applications use none. */
    private @Nullable List<LockClient> redLockNodes;

    private @Nullable RedLockClient redLock;

    /** Local locks with what {@code options} says, as the Redis client would take them. */
    public LocalLocks(LockClientOptions options) {
        this.options = options;
        this.client = LockClient.local(options);
        this.source = new RedisLockSource(() -> client, this::redLock);
    }

    private synchronized RedLockClient redLock() {
        if (redLock == null) {
            redLockNodes = Stream.generate(() -> LockClient.local(options))
                    .limit(RedLockClient.MIN_NODES)
                    .toList();
            redLock = RedLockClient.of(redLockNodes, options);
        }
        return redLock;
    }

    /** A leader candidate on the local lock client: the election runs among this JVM's candidates. */
    public LeaderCandidate leader(String role, LeaderListener listener) {
        return client.leader(role, listener);
    }

    @Override
    public RedisLock lock(LockType type, boolean redlock, String key, String label) {
        return source.lock(type, redlock, key, label);
    }

    @Override
    public RedisLock permits(LockType type, String key, int permits, String label) {
        return source.permits(type, key, permits, label);
    }

    @Override
    public LockSource withMaxHold(Duration maxHold) {
        return source.withMaxHold(maxHold);
    }

    @Override
    public RedisMultiLock multiLock(List<String> keys, String label) {
        return source.multiLock(keys, label);
    }

    @Override
    public boolean forceUnlock(String key, String type) {
        return source.forceUnlock(key, type);
    }

    /** Every hold of the local locks, the RedLock's too once it is used. */
    @Override
    public List<HeldLock> heldLocks() {
        List<HeldLock> all = new ArrayList<>(client.heldLocks());
        synchronized (this) {
            if (redLock != null) {
                all.addAll(redLock.heldLocks());
            }
        }
        return all;
    }

    @Override
    public int activeHolds() {
        return source.activeHolds();
    }

    /** Always answers: the store is in this JVM. */
    @Override
    public void check() {
        source.check();
    }

    /**
     * Closes the local locks: waiting callers fail, later calls say the locks are closed, and holds
     * end (a watchdog hold is reported lost) as when a Redis client closes.
     */
    @Override
    public synchronized void close() {
        if (redLock != null) {
            redLock.close();
            redLockNodes.forEach(LockClient::close);
        }
        client.close();
    }
}
