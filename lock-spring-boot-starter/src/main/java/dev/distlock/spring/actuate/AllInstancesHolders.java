package dev.distlock.spring.actuate;

import dev.distlock.spring.redis.InstanceRecords;
import dev.distlock.spring.redis.LockHashReader;
import dev.distlock.spring.redis.LockHashes;
import dev.distlock.spring.redis.LockHolder;
import dev.distlock.spring.redis.PublishedHolds;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The holders of every instance, read from Redis: the lock hashes under the key prefix (SCAN, at most
 * {@code maxKeys} of them, every master of a Cluster), each decoded into its holders, the lease left, the
 * waiters a fair lock queues, the instance behind each client id as that instance recorded itself
 * ({@link InstanceRecords}), and the thread and held-for of each hold as its instance published them
 * ({@link PublishedHolds}). A few round trips per lock, so bounded and only on request.
 */
public final class AllInstancesHolders {

    private final LockHashReader reader;
    private final StringRedisTemplate redis;
    private final String keyPrefix;
    private final String clientId;
    private final int maxKeys;

    /**
     * @param clientId this instance's lock client id, so its own holds are marked
     * @param maxKeys the most lock keys one listing reads (distlock.actuator.max-listed-locks)
     */
    public AllInstancesHolders(
            LockHashReader reader, RedisConnectionFactory connections, String keyPrefix, String clientId, int maxKeys) {
        this.reader = reader;
        this.redis = new StringRedisTemplate(connections);
        this.keyPrefix = keyPrefix;
        this.clientId = clientId;
        this.maxKeys = maxKeys;
    }

    /** The listing now. */
    public AllHoldsDescriptor list() {
        List<String> keys = reader.lockKeys(maxKeys + 1);
        boolean truncated = keys.size() > maxKeys;
        Map<String, String> instances = new HashMap<>();
        Map<String, Optional<Map<String, PublishedHolds.Hold>>> published = new HashMap<>();
        Instant now = Instant.now();
        List<LockDescriptor> locks = new ArrayList<>();
        for (String key : keys.subList(0, Math.min(keys.size(), maxKeys))) {
            Map<String, String> fields = reader.fields(key);
            List<HolderDescriptor> holders = LockHashes.holders(fields).stream()
                    .map(h -> describe(key, h, instances, published, now))
                    .toList();
            if (holders.isEmpty()) {
                continue; // kept after a release (holdAtLeast) or reserved for a waiter: taken by nobody
            }
            long left = reader.leaseLeftMillis(key);
            locks.add(new LockDescriptor(
                    key,
                    holders.get(0).kind(),
                    holders,
                    left < 0 ? null : left,
                    "EXCLUSIVE".equals(holders.get(0).kind()) ? reader.queued(key) : null));
        }
        return new AllHoldsDescriptor(keyPrefix, maxKeys, truncated, locks);
    }

    private HolderDescriptor describe(
            String key,
            LockHolder holder,
            Map<String, String> instances,
            Map<String, Optional<Map<String, PublishedHolds.Hold>>> published,
            Instant now) {
        String instance = instances.computeIfAbsent(holder.clientId(), id -> {
            String recorded = InstanceRecords.describe(redis, keyPrefix, id);
            return recorded != null
                    ? recorded
                    : "(unknown: no record under " + InstanceRecords.key(keyPrefix, id) + ")";
        });
        PublishedHolds.Hold hold = holder.token() == null
                ? null
                : published
                        .computeIfAbsent(
                                holder.clientId(), id -> Optional.ofNullable(PublishedHolds.read(redis, keyPrefix, id)))
                        .map(holds -> holds.get(PublishedHolds.holdId(key, holder.token())))
                        .orElse(null);
        return new HolderDescriptor(
                holder.owner(),
                holder.clientId(),
                instance,
                holder.clientId().equals(clientId),
                holder.kind(),
                holder.token(),
                hold == null ? null : hold.thread() != null ? hold.thread() : "(a LockHandle: owned by no thread)",
                hold == null ? null : hold.since(),
                hold == null
                        ? null
                        : Math.max(0, Duration.between(hold.since(), now).toMillis()));
    }

    /**
     * Every instance's holders.
     *
     * @param keyPrefix the key prefix scanned
     * @param maxKeys the most lock keys read
     * @param truncated whether more lock keys were there than were read
     * @param locks the locks held now
     */
    public record AllHoldsDescriptor(String keyPrefix, int maxKeys, boolean truncated, List<LockDescriptor> locks) {}

    /**
     * One lock.
     *
     * @param key the lock's key
     * @param kind EXCLUSIVE (reentrant or fair), WRITE or READ
     * @param holders who holds it
     * @param leaseLeftMs the lease left in Redis, or null when none is set
     * @param queuedWaiters the waiters queued in Redis (fair locks; 0 for a reentrant lock, whose waiters wait
     *     without a queue), null for read/write locks
     */
    public record LockDescriptor(
            String key, String kind, List<HolderDescriptor> holders, Long leaseLeftMs, Long queuedWaiters) {}

    /**
     * One holder.
     *
     * @param owner the owner id, {@code <client id>:<thread id>} or {@code <client id>:h<n>} for an async handle
     * @param clientId the holding instance's lock client id
     * @param instance "application, host, pid" as that instance recorded itself
     * @param thisInstance whether it is this instance
     * @param kind EXCLUSIVE, WRITE or READ
     * @param fencingToken the hold's fencing token
     * @param ownerThread the thread that holds it, or a note saying a LockHandle owns it; null when unknown
     * @param heldSince when it was granted, on the holding instance's clock; null when unknown
     * @param heldForMs how long it has been held (from heldSince, by this instance's clock); null when unknown:
     *     the holding instance published no record of its holds (it stopped or crashed), or has not published
     *     this hold yet (it checks its holds every second)
     */
    public record HolderDescriptor(
            String owner,
            String clientId,
            String instance,
            boolean thisInstance,
            String kind,
            Long fencingToken,
            String ownerThread,
            Instant heldSince,
            Long heldForMs) {}
}
