package dev.distlock.benchmark;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * The libraries under comparison, each peer at its best: a variant is a library of its own (a row of
 * the report), so Redisson's default and EPOLL transports and RedisLockRegistry's two lock types are
 * all measured in the same run. Nothing else is tuned.
 */
enum Library {
    DISTLOCK("distlock", "distlock"),
    /**
     * distlock as it is on Redis before 7.0 (or with {@code PubSubMode.PLAIN}): wake-ups by
     * PUBLISH, which a Redis Cluster broadcasts to every node. Only in the Redis Cluster scenario, where
     * plain "distlock" uses sharded pub/sub.
     */
    DISTLOCK_PUBLISH("distlock-publish", "distlock, PUBLISH"),
    /** Not a peer: two bare EVALSHA round trips per op, the floor of the uncontended scenarios. */
    RAW_FLOOR("raw", "raw floor"),
    /**
     * The raw floor once more, run next to it: how far two runs of the very same code differ within a
     * round (an A/A comparison), the yardstick for "distlock is at the floor within noise".
     */
    RAW_FLOOR_AGAIN("raw-again", "raw floor again"),
    /**
     * The raw floor's bare client running distlock's own acquire and release scripts: what distlock's
     * distance to the floor owes to its scripts (Redis's side) and what to its client.
     */
    RAW_SCRIPTS("raw-scripts", "raw floor, distlock's scripts"),
    REDISSON("redisson", "Redisson"),
    REDISSON_EPOLL("redisson-epoll", "Redisson EPOLL"),
    SPRING_SPIN("spring-spin", "RedisLockRegistry SPIN"),
    SPRING_PUB_SUB("spring-pubsub", "RedisLockRegistry PUB_SUB");

    /** The watchdog lease both distlock and Redisson use by default. */
    static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    /** Name used on the command line and in the child-JVM protocol. */
    final String id;
    /** Name printed in the report. */
    final String label;

    Library(String id, String label) {
        this.id = id;
        this.label = label;
    }

    /**
     * Opens the library's client.
     *
     * @param watchdogLease lease of locks taken without one, for the libraries that renew (distlock,
     *        Redisson); both default to 30 s
     */
    LockProvider open(String host, int port, Duration watchdogLease) {
        return switch (this) {
            case DISTLOCK, DISTLOCK_PUBLISH -> new DistlockProvider(host, port, watchdogLease);
            case REDISSON -> new RedissonProvider(host, port, false, watchdogLease);
            case REDISSON_EPOLL -> new RedissonProvider(host, port, true, watchdogLease);
            case SPRING_SPIN -> new SpringProvider(host, port, RedisLockType.SPIN_LOCK);
            case SPRING_PUB_SUB -> new SpringProvider(host, port, RedisLockType.PUB_SUB_LOCK);
            case RAW_FLOOR, RAW_FLOOR_AGAIN -> new RawFloorProvider(host, port, false);
            case RAW_SCRIPTS -> new RawFloorProvider(host, port, true);
        };
    }

    /** Whether {@link #open} gives a provider with {@code feature}, without opening one. */
    boolean has(LockProvider.Feature feature) {
        return this != SPRING_SPIN && this != SPRING_PUB_SUB && !isRawFloor();
    }

    /** A raw floor (the floor, its second run, or with distlock's scripts): not a lock, so only in the uncontended scenarios. */
    boolean isRawFloor() {
        return this == RAW_FLOOR || this == RAW_FLOOR_AGAIN || this == RAW_SCRIPTS;
    }

    static Library byId(String id) {
        String wanted = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values())
                .filter(l ->
                        l.id.equals(wanted) || l.label.toLowerCase(Locale.ROOT).equals(wanted))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown library '" + id + "'; known: "
                        + Arrays.stream(values()).map(l -> l.id).collect(Collectors.joining(", "))));
    }
}
