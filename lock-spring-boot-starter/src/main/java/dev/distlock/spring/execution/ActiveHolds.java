package dev.distlock.spring.execution;

import dev.distlock.core.RedisLock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The holds this instance has taken through {@code @DistributedLock} and {@code LockTemplate} and
 * not yet released, for the Actuator endpoint. Holds taken directly through {@code LockClient} are
 * not listed. Infrastructure of the starter, not API.
 */
public final class ActiveHolds {

    private final Map<Long, Entry> holds = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    /** One hold as the endpoint shows it; lease left is read when asked. */
    public record Entry(
            long id,
            LockRequest request,
            String ownerThread,
            Instant since,
            long sinceNanos,
            Map<String, Long> fencingTokens,
            RedisLock lock) {

        /** How long it has been held. */
        public Duration heldFor() {
            return Duration.ofNanos(System.nanoTime() - sinceNanos);
        }

        /** Whether the lease is renewed by the watchdog (no fixed lease). */
        public boolean watchdog() {
            return request.leaseTime() == null;
        }
    }

    /** Records a hold that was just granted to the current thread; returns its id for {@link #remove}. */
    long add(LockRequest request, Map<String, Long> tokens, RedisLock lock) {
        return add(request, tokens, lock, Thread.currentThread().getName());
    }

    /** Records a hold that was just granted to {@code owner} (an async call's handle: no thread owns it). */
    long add(LockRequest request, Map<String, Long> tokens, RedisLock lock, String owner) {
        long id = ids.incrementAndGet();
        holds.put(id, new Entry(id, request, owner, Instant.now(), System.nanoTime(), Map.copyOf(tokens), lock));
        return id;
    }

    void remove(long id) {
        holds.remove(id);
    }

    /** The holds now, oldest first. */
    public List<Entry> list() {
        return holds.values().stream()
                .sorted(Comparator.comparingLong(Entry::id))
                .toList();
    }

    /** How many holds are listed now. */
    public int size() {
        return holds.size();
    }
}
