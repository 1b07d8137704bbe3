package dev.distlock.core.internal.redis;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warns when Redis may evict lock keys. Every lock key carries a TTL (its lease), so not only the
 * {@code allkeys-*} policies but the {@code volatile-*} ones too evict locks under memory pressure,
 * which frees a held lock silently; only {@code noeviction} keeps them. Reads {@code maxmemory-policy}
 * (every master's on Redis Cluster) when the client starts and each time its command connection
 * reconnects (the server may have restarted or failed over with another configuration), and logs one
 * WARN when the evicting policies seen differ from those last warned about, so a client that keeps
 * reconnecting to the same server does not repeat itself.
 *
 * <p>Costs no lock operation anything: it is one {@code CONFIG GET} per connect, sent without waiting
 * for it and bounded by the operation timeout. A user whose ACL forbids {@code CONFIG} (or a managed
 * Redis that renamed it) skips the check with a DEBUG line.
 */
public final class EvictionPolicyCheck implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EvictionPolicyCheck.class);

    private static final String SAFE = "noeviction";

    private final RedisConnections redis;
    private final long timeoutNanos;
    private final Runnable stopListening;
    /** The evicting policies last warned about; empty when the last check found none. */
    private final AtomicReference<Set<String>> warned = new AtomicReference<>(Set.of());

    private EvictionPolicyCheck(RedisConnections redis, long timeoutNanos) {
        this.redis = redis;
        this.timeoutNanos = timeoutNanos;
        this.stopListening = redis.onReconnected(this::check);
    }

    /** Checks now and after every reconnect of {@code redis}'s command connection, until closed. */
    public static EvictionPolicyCheck start(RedisConnections redis, long timeoutNanos) {
        EvictionPolicyCheck check = new EvictionPolicyCheck(redis, timeoutNanos);
        check.check();
        return check;
    }

    /** Reads the policy without waiting for it; the result completes when it has been logged (or skipped). */
    CompletableFuture<Void> check() {
        List<CompletableFuture<Map<String, String>>> reads;
        try {
            reads = redis.configGet("maxmemory-policy");
        } catch (RuntimeException e) { // a connection that refuses at once, as a closing one does
            log.debug("Could not read maxmemory-policy: {}", e.toString());
            return CompletableFuture.completedFuture(null);
        }
        Set<String> evicting = new TreeSet<>();
        CompletableFuture<?>[] each = reads.stream()
                .map(read -> read.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).handle((config, error) -> {
                    if (error != null) {
                        skipped(RedisFailures.unwrap(error));
                        return null;
                    }
                    String policy = config.get("maxmemory-policy");
                    if (policy != null && !SAFE.equals(policy)) {
                        synchronized (evicting) {
                            evicting.add(policy);
                        }
                    }
                    return null;
                }))
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(each).thenRun(() -> report(evicting));
    }

    private void report(Set<String> evicting) {
        Set<String> seen;
        synchronized (evicting) {
            seen = Set.copyOf(evicting);
        }
        if (warned.getAndSet(seen).equals(seen) || seen.isEmpty()) {
            return;
        }
        log.warn(
                "Redis maxmemory-policy is {}: under memory pressure Redis may evict lock keys and so free locks"
                        + " that are still held (every lock key has a TTL, so volatile-* policies evict locks"
                        + " too). Set maxmemory-policy to noeviction on the Redis that holds the locks.",
                String.join(", ", seen));
    }

    private static void skipped(Throwable error) {
        String message = String.valueOf(error.getMessage());
        if (message.startsWith("NOPERM")) {
            log.debug("Not checking maxmemory-policy: this user may not run CONFIG GET ({})", message);
        } else {
            log.debug("Could not read maxmemory-policy: {}", error.toString());
        }
    }

    @Override
    public void close() {
        stopListening.run();
    }
}
