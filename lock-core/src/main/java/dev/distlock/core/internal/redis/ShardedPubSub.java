package dev.distlock.core.internal.redis;

import dev.distlock.core.PubSubMode;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.AsyncExecutions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses, once as a client connects, how its wake-ups travel, as its {@link PubSubMode} asks: Redis 7's
 * sharded pub/sub (SPUBLISH in the scripts, SSUBSCRIBE for the waiters), which keeps a message on the shard
 * that owns the lock's slot, or PUBLISH and SUBSCRIBE, which a Cluster broadcasts to every node. AUTO takes
 * sharded pub/sub on a Cluster whose every master runs Redis 7.0 or later. Says which at start-up, and what
 * chose it. The deprecated {@code -Ddistlock.sharded-pubsub=false} still makes AUTO keep PUBLISH on a Cluster.
 */
final class ShardedPubSub {

    /** The deprecated system property that makes {@link PubSubMode#AUTO} choose PUBLISH when {@code false}. */
    static final String PROPERTY = "distlock.sharded-pubsub";

    private static final Logger log = LoggerFactory.getLogger(ShardedPubSub.class);

    private ShardedPubSub() {}

    /** Whether the client on {@code connection} publishes and subscribes sharded, as {@code mode} asks; logs the choice. */
    static boolean choose(PubSubMode mode, StatefulConnection<String, String> connection) {
        return choose(mode, connection instanceof StatefulRedisClusterConnection, () -> oldestMaster(connection));
    }

    /**
     * Whether wake-ups travel sharded, as {@code mode} asks of a Cluster ({@code cluster}) or a standalone or
     * Sentinel Redis whose oldest master runs Redis {@code oldest} (asked only when the choice needs it); logs
     * the choice and what made it.
     *
     * @throws IllegalArgumentException when {@code mode} is {@link PubSubMode#SHARDED} and a master runs Redis
     *     older than 7.0
     */
    static boolean choose(PubSubMode mode, boolean cluster, Supplier<String> oldest) {
        String on = cluster ? "distlock on Redis Cluster" : "distlock";
        String plain = cluster ? "PUBLISH, broadcast to every node" : "PUBLISH and SUBSCRIBE";
        if (mode == PubSubMode.PLAIN) {
            log.info("{}: wake-ups use {}: set in the options (PubSubMode.PLAIN)", on, plain);
            return false;
        }
        if (mode == PubSubMode.AUTO && !cluster) {
            log.info("{}: wake-ups use {}: chosen by PubSubMode.AUTO, as Redis is not a Cluster", on, plain);
            return false;
        }
        if (mode == PubSubMode.AUTO
                && "false".equalsIgnoreCase(System.getProperty(PROPERTY, "").trim())) {
            log.warn(
                    "{}: wake-ups use {}: chosen by -D{}=false, which is deprecated: set PubSubMode.PLAIN in the"
                            + " options instead (LockClientOptions.Builder.pubSub; distlock.pub-sub=plain in Spring Boot)",
                    on,
                    plain,
                    PROPERTY);
            return false;
        }
        String version;
        try {
            version = oldest.get();
        } catch (RuntimeException e) {
            boolean sharded = mode == PubSubMode.SHARDED;
            log.warn(
                    "{}: wake-ups use {}: {}, unchecked: cannot read the Redis version of the masters (INFO server): {}",
                    on,
                    sharded ? "sharded pub/sub (SPUBLISH, SSUBSCRIBE)" : plain,
                    sharded ? "set in the options (PubSubMode.SHARDED)" : "chosen by PubSubMode.AUTO",
                    e.toString());
            return sharded;
        }
        if (!supports(version)) {
            if (mode == PubSubMode.SHARDED) {
                throw new IllegalArgumentException("PubSubMode.SHARDED asks for sharded pub/sub (SPUBLISH, SSUBSCRIBE),"
                        + " which Redis has from 7.0, but " + (cluster ? "a master of the Cluster" : "the server")
                        + " runs Redis " + version + ": use PubSubMode.AUTO, which chooses PUBLISH there, or PLAIN"
                        + " (distlock.pub-sub=auto or plain in Spring Boot), or upgrade Redis to 7.0 or later");
            }
            log.info(
                    "{}: wake-ups use {}: chosen by PubSubMode.AUTO, as a master runs Redis {}, and sharded pub/sub"
                            + " needs 7.0",
                    on,
                    plain,
                    version);
            return false;
        }
        log.info(
                "{}: wake-ups use sharded pub/sub (SPUBLISH, SSUBSCRIBE){}: {} ({}Redis {})",
                on,
                cluster ? ", kept on the shard of each lock's slot" : "",
                mode == PubSubMode.SHARDED
                        ? "set in the options (PubSubMode.SHARDED)"
                        : "chosen by PubSubMode.AUTO, as every master runs Redis 7.0 or later",
                cluster ? "oldest master " : "",
                version);
        return true;
    }

    /**
     * The lowest {@code redis_version} among the masters (of a Cluster, or the one of a standalone or Sentinel
     * Redis) that answer within the connection's timeout (one deadline for all). A master that does not answer
     * (down while its replica takes over, which runs the same version) is left out, so that a client started
     * then chooses as the others do.
     */
    private static String oldestMaster(StatefulConnection<String, String> connection) {
        long deadline = System.nanoTime() + connection.getTimeout().toNanos();
        if (connection instanceof StatefulRedisClusterConnection<String, String> cluster) {
            AsyncExecutions<String> infos = cluster.async().masters().commands().info("server");
            return oldestAnswered(List.of(infos.futures()), deadline);
        }
        StatefulRedisConnection<String, String> standalone = (StatefulRedisConnection<String, String>) connection;
        return oldestAnswered(List.of(standalone.async().info("server").toCompletableFuture()), deadline);
    }

    /** The lowest version of the {@code INFO server} replies that come by {@code deadline} ({@link System#nanoTime}). */
    static String oldestAnswered(List<CompletableFuture<String>> infos, long deadline) {
        String oldest = null;
        RuntimeException unanswered = null;
        for (CompletableFuture<String> info : infos) {
            try {
                String version = version(info.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                if (oldest == null || compare(version, oldest) < 0) {
                    oldest = version;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while reading the masters' versions", e);
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                unanswered = new IllegalStateException("a master did not tell its version: " + e, e);
            }
        }
        if (oldest == null) {
            throw unanswered != null ? unanswered : new IllegalStateException("no master known");
        }
        if (unanswered != null) {
            log.warn("distlock on Redis Cluster: choosing by the masters that answered; {}", unanswered.getMessage());
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
