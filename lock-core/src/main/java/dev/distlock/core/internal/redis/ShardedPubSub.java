package dev.distlock.core.internal.redis;

import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.AsyncExecutions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses, once as a Redis Cluster client connects, how its wake-ups travel: Redis 7's sharded pub/sub
 * (SPUBLISH in the scripts, SSUBSCRIBE for the waiters), which keeps a message on the shard that owns
 * the lock's slot, when every master runs Redis 7.0 or later; else PUBLISH and SUBSCRIBE, which the
 * cluster broadcasts to every node. Says which at start-up. {@code -Ddistlock.sharded-pubsub=false}
 * keeps PUBLISH (for a proxy or managed service that refuses SSUBSCRIBE), read as each client connects.
 */
final class ShardedPubSub {

    /** The system property that turns sharded pub/sub off when {@code false}. */
    static final String PROPERTY = "distlock.sharded-pubsub";

    private static final Logger log = LoggerFactory.getLogger(ShardedPubSub.class);

    private ShardedPubSub() {}

    /** Whether the client of {@code cluster} publishes and subscribes sharded; logs the choice. */
    static boolean choose(StatefulRedisClusterConnection<String, String> cluster) {
        if ("false".equalsIgnoreCase(System.getProperty(PROPERTY, "").trim())) {
            log.info("distlock on Redis Cluster: wake-ups use PUBLISH, broadcast to every node (-D{}=false)", PROPERTY);
            return false;
        }
        String oldest;
        try {
            oldest = oldestMaster(cluster);
        } catch (RuntimeException e) {
            log.warn(
                    "distlock on Redis Cluster: wake-ups use PUBLISH, broadcast to every node: cannot read the masters'"
                            + " versions (INFO server): {}",
                    e.toString());
            return false;
        }
        if (supports(oldest)) {
            log.info(
                    "distlock on Redis Cluster: wake-ups use sharded pub/sub (SPUBLISH, SSUBSCRIBE), kept on the shard"
                            + " of each lock's slot: every master runs Redis 7.0 or later (oldest {})",
                    oldest);
            return true;
        }
        log.info(
                "distlock on Redis Cluster: wake-ups use PUBLISH, broadcast to every node: a master runs Redis {},"
                        + " sharded pub/sub needs 7.0",
                oldest);
        return false;
    }

    /** The lowest {@code redis_version} among the masters. */
    private static String oldestMaster(StatefulRedisClusterConnection<String, String> cluster) {
        Duration timeout = cluster.getTimeout();
        AsyncExecutions<String> infos = cluster.async().masters().commands().info("server");
        String oldest = null;
        for (CompletableFuture<String> info : infos.futures()) {
            String version = version(
                    info.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).join());
            if (oldest == null || compare(version, oldest) < 0) {
                oldest = version;
            }
        }
        if (oldest == null) {
            throw new IllegalStateException("no master known");
        }
        return oldest;
    }

    static String version(String infoServer) {
        return infoServer
                .lines()
                .filter(line -> line.startsWith("redis_version:"))
                .map(line -> line.substring("redis_version:".length()).trim())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("INFO server without redis_version"));
    }

    /** Whether Redis {@code version} has sharded pub/sub (7.0 and later). */
    static boolean supports(String version) {
        return compare(version, "7.0.0") >= 0;
    }

    private static int compare(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int d = Integer.compare(part(x, i), part(y, i));
            if (d != 0) {
                return d;
            }
        }
        return 0;
    }

    private static int part(String[] parts, int i) {
        if (i >= parts.length) {
            return 0;
        }
        String digits = parts[i].replaceAll("\\D.*", "");
        return digits.isEmpty() ? 0 : Integer.parseInt(digits);
    }
}
