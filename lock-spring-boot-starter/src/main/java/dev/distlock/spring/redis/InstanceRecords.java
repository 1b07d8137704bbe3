package dev.distlock.spring.redis;

import dev.distlock.core.HeldLock;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Tells other instances who this one is: a small key {@code <prefix>~instance:<client id>} holding
 * "application, host, pid", with a TTL that a timer of its own refreshes (every third of it), so that an
 * instance's Actuator endpoint can name the instance behind any owner id it finds in Redis. Beside it, the
 * instance's {@link PublishedHolds} (when each hold began, and its thread), checked every
 * {@link #HOLDS_EVERY} and written when they changed (or with the record), so that held-for can be shown
 * for other instances' holds too. Nothing of it is on a lock's path; a failed refresh is logged and tried
 * again at the next tick. The keys go with the instance: deleted when it stops, expired when it crashed.
 * Infrastructure of the starter, not API.
 */
public final class InstanceRecords implements SmartLifecycle {

    /** How long a record outlives its last refresh. */
    static final Duration TTL = Duration.ofSeconds(60);

    /** How often the published holds are compared with the holds now: a hold younger than that may be missing. */
    static final Duration HOLDS_EVERY = Duration.ofSeconds(1);

    /** How long a stop waits for a write under way before it deletes the keys (they expire anyway). */
    private static final Duration STOP_WAIT = Duration.ofSeconds(5);

    private static final Logger log = LoggerFactory.getLogger(InstanceRecords.class);

    private final Supplier<@Nullable RedisConnectionFactory> connections;
    private final String keyPrefix;
    private final Supplier<@Nullable String> clientId;
    private final String application;
    private final Supplier<List<HeldLock>> holds;
    private @Nullable StringRedisTemplate redis;
    private @Nullable String id;
    private @Nullable String description;
    private ScheduledExecutorService timer;
    /** Whether the last refresh failed, so an outage is logged once, not at every tick. */
    private volatile boolean failing;
    /** The signature of the holds last published, null before the first (and after a failed) publication. */
    private @Nullable String published;

    /**
     * @param connections the application's Redis; null when there is none (nothing is recorded then)
     * @param clientId the lock client's id; null when there is no lock client (nothing is recorded then)
     * @param application the application's name (spring.application.name)
     * @param holds this instance's holds now (its lock clients' own records, no Redis call)
     */
    public InstanceRecords(
            Supplier<@Nullable RedisConnectionFactory> connections,
            String keyPrefix,
            Supplier<@Nullable String> clientId,
            String application,
            Supplier<List<HeldLock>> holds) {
        this.connections = connections;
        this.keyPrefix = keyPrefix;
        this.clientId = clientId;
        this.application = application;
        this.holds = holds;
    }

    /** The key of a client's record. */
    public static String key(String keyPrefix, String clientId) {
        return keyPrefix + "~instance:" + clientId;
    }

    /** What {@code clientId}'s instance recorded of itself, or null when it recorded nothing (or its record expired). */
    public static String describe(StringRedisTemplate redis, String keyPrefix, String clientId) {
        return redis.opsForValue().get(key(keyPrefix, clientId));
    }

    @Override
    public synchronized void start() {
        RedisConnectionFactory factory = connections.get();
        id = clientId.get();
        if (factory == null || id == null) {
            return;
        }
        redis = new StringRedisTemplate(factory);
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "distlock-instance-record");
            t.setDaemon(true);
            return t;
        });
        long every = TTL.toMillis() / 3;
        timer.scheduleWithFixedDelay(this::record, 0, every, TimeUnit.MILLISECONDS);
        timer.scheduleWithFixedDelay(this::publishHolds, 0, HOLDS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Publishes the holds when they changed since the last publication; {@link #record()} refreshes them anyway. */
    private void publishHolds() {
        try {
            List<HeldLock> now = holds.get();
            String signature = PublishedHolds.signature(now);
            if (!signature.equals(published)) {
                redis.opsForValue().set(PublishedHolds.key(keyPrefix, id), PublishedHolds.encode(now), TTL);
                published = signature;
            }
        } catch (RuntimeException e) {
            published = null;
            failed(e);
        }
    }

    private void record() {
        try {
            if (description == null) { // here, off the start-up path: a host name may take a DNS lookup
                description = "application=" + application + ", host=" + host() + ", pid="
                        + ProcessHandle.current().pid();
            }
            redis.opsForValue().set(key(keyPrefix, id), description, TTL);
            published = null; // so that the next check writes the holds again, and their key outlives this TTL too
            failing = false;
        } catch (RuntimeException e) {
            failed(e);
        }
    }

    private void failed(RuntimeException e) {
        if (!failing) {
            log.warn(
                    "Could not record this instance ({}) or its holds in Redis, so other instances' Actuator endpoints"
                            + " show its locks without naming it or their held-for; trying again: {}",
                    id,
                    e.toString());
        }
        failing = true;
    }

    @Override
    public synchronized void stop() {
        if (timer == null) {
            return;
        }
        timer.shutdownNow();
        try {
            // a write under way would put a key back after the delete: let it end (one Redis call)
            timer.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        timer = null;
        try {
            // one key at a time: on a Cluster the two may be in different slots
            redis.delete(key(keyPrefix, id));
            redis.delete(PublishedHolds.key(keyPrefix, id));
        } catch (RuntimeException e) {
            log.debug("Could not delete this instance's record ({}); it expires in {} s", id, TTL.toSeconds(), e);
        }
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "(unknown host: " + e.getMessage() + ")";
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return timer != null;
    }

    /** Stops before the lock client and the connection factory (both in lower phases) stop. */
    @Override
    public int getPhase() {
        return 2048;
    }
}
