package dev.distlock.core.internal.redlock;

import dev.distlock.core.LockException;
import dev.distlock.core.internal.engine.RedisNode;
import io.lettuce.core.RedisURI;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Refuses RedLock nodes that are one Redis after all (listed twice, or one process reached two ways):
 * a "majority" of them could come from one server.
 */
public final class DistinctNodes {

    private DistinctNodes() {}

    /**
     * Refuses a server listed twice: both entries would grant the same lock (the second grant looks like
     * the first one sent again), so a "majority" could come from one Redis.
     */
    public static void requireDistinctServers(List<RedisURI> uris) {
        Set<String> seen = new HashSet<>();
        for (RedisURI uri : uris) {
            String server = server(Objects.requireNonNull(uri, "uris must not contain null"));
            if (!seen.add(server)) {
                throw new IllegalArgumentException("RedLock nodes list " + server
                        + " twice: RedLock needs distinct, independent Redis masters, one entry each");
            }
        }
    }

    /**
     * Refuses two nodes that one Redis process serves, however each was reached (another host name or
     * address for it, another database, another key prefix): they would fail together, so a majority could
     * again come from one server. Compares the run id each server reports; a node that does not answer
     * {@code INFO} within its operation timeout (down, or an ACL user without {@code INFO}) is not compared.
     */
    public static void requireDistinctProcesses(List<RedisNode> nodes, long timeoutNanos, List<String> names) {
        List<CompletableFuture<@Nullable String>> runIds =
                nodes.stream().map(RedisNode::serverRunId).toList();
        // asked all at once, so the whole check waits one timeout at most (the longest of the nodes')
        long deadline = System.nanoTime() + timeoutNanos;
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < nodes.size(); i++) {
            String runId = answered(runIds.get(i), deadline);
            Integer earlier = runId == null ? null : seen.putIfAbsent(runId, i);
            if (earlier != null) {
                throw new IllegalArgumentException("RedLock " + names.get(earlier) + " and " + names.get(i)
                        + " are one Redis server (both report run_id " + runId
                        + "): RedLock needs distinct, independent Redis masters, one entry each");
            }
        }
    }

    /** What {@code runId} answered by {@code deadline} ({@link System#nanoTime()}), or {@code null} when it did not (or failed). */
    private static @Nullable String answered(CompletableFuture<@Nullable String> runId, long deadline) {
        try {
            return runId.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while asking the RedLock nodes which Redis server they are", e);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    /** The server (and database) {@code uri} names, without credentials: host and port, or the Sentinel master. */
    public static String server(RedisURI uri) {
        String where = uri.getSocket() != null
                ? "socket " + uri.getSocket()
                : uri.getSentinels().isEmpty()
                        ? uri.getHost().toLowerCase(Locale.ROOT) + ":" + uri.getPort()
                        : "Sentinel master " + uri.getSentinelMasterId() + " via "
                                + uri.getSentinels().stream()
                                        .map(s -> s.getHost().toLowerCase(Locale.ROOT) + ":" + s.getPort())
                                        .sorted()
                                        .toList();
        return where + (uri.getDatabase() == 0 ? "" : " database " + uri.getDatabase());
    }
}
