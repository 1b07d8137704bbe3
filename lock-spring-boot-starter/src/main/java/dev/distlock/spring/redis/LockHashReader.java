package dev.distlock.spring.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Reads locks, read-only, on the application's Redis connection (the one the lock client shares): each
 * call bounded by distlock.operation-timeout on Lettuce, by the connection's own timeout on other clients.
 * The keys are lock-core's layout, {@code <prefix>{<key>}}. On a Lettuce Cluster connection a SCAN walks
 * every master in turn. Infrastructure of the starter, not API.
 */
public final class LockHashReader {

    /** Keys asked for per SCAN step. */
    static final int PAGE = 100;

    private final RedisConnectionFactory connections;
    private final String keyPrefix;
    private final Duration timeout;

    public LockHashReader(RedisConnectionFactory connections, String keyPrefix, Duration timeout) {
        this.connections = connections;
        this.keyPrefix = keyPrefix;
        this.timeout = timeout;
    }

    /** The Redis key of the lock on {@code key}. */
    public String redisKey(String key) {
        return keyPrefix + "{" + key + "}";
    }

    /**
     * The fields of the lock's hash; empty when the lock is free.
     *
     * @throws IllegalStateException when Redis did not answer within the timeout, or failed
     */
    public Map<String, String> fields(String key) {
        byte[] redisKey = bytes(redisKey(key));
        Map<byte[], byte[]> raw =
                call(c -> c.hgetall(redisKey), c -> c.hashCommands().hGetAll(redisKey), key);
        Map<String, String> fields = new LinkedHashMap<>();
        if (raw != null) {
            raw.forEach((field, value) -> fields.put(text(field), text(value)));
        }
        return fields;
    }

    /** The lease left on the lock, in ms: negative when it is free (or has no TTL). */
    public long leaseLeftMillis(String key) {
        byte[] redisKey = bytes(redisKey(key));
        Long left = call(c -> c.pttl(redisKey), c -> c.keyCommands().pTtl(redisKey), key);
        return left == null ? -2 : left;
    }

    /** How many waiters a fair lock queues (0 for other kinds, which keep no queue in Redis). */
    public long queued(String key) {
        byte[] queue = bytes(redisKey(key) + ":queue");
        Long length = call(c -> c.llen(queue), c -> c.listCommands().lLen(queue), key);
        return length == null ? 0 : length;
    }

    /**
     * The keys of the locks in Redis under the prefix, found with SCAN, at most {@code max} of them (the
     * lock hashes only: a derived key such as {@code <prefix>{key}:fence} ends after the brace).
     */
    public List<String> lockKeys(int max) {
        String match =
                keyPrefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1") + "{*}"; // the prefix as written, not a pattern
        List<String> keys = new ArrayList<>();
        try (RedisConnection connection = connections.getConnection()) {
            if (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> lettuce) {
                RedisClusterAsyncCommands<byte[], byte[]> commands = bytesCommands(lettuce);
                ScanArgs args = ScanArgs.Builder.matches(match).limit(PAGE);
                ScanCursor cursor = ScanCursor.INITIAL;
                do {
                    ScanCursor from = cursor;
                    KeyScanCursor<byte[]> page = await(commands.scan(from, args), match);
                    page.getKeys().forEach(k -> add(keys, text(k), max));
                    cursor = page;
                } while (!cursor.isFinished() && keys.size() < max);
            } else {
                try (Cursor<byte[]> cursor = connection
                        .keyCommands()
                        .scan(ScanOptions.scanOptions().match(match).count(PAGE).build())) {
                    while (cursor.hasNext() && keys.size() < max) {
                        add(keys, text(cursor.next()), max);
                    }
                }
            }
        } catch (RuntimeException e) {
            throw new IllegalStateException("Redis failed: " + e, e);
        }
        return keys;
    }

    private void add(List<String> keys, String redisKey, int max) {
        if (keys.size() < max && redisKey.endsWith("}")) {
            keys.add(redisKey.substring(keyPrefix.length() + 1, redisKey.length() - 1));
        }
    }

    private <T> T call(
            Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> lettuce,
            Function<RedisConnection, T> other,
            String key) {
        try (RedisConnection connection = connections.getConnection()) {
            if (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> commands) {
                return await(lettuce.apply(bytesCommands(commands)), key);
            }
            return other.apply(connection);
        } catch (IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IllegalStateException("Redis failed: " + e, e);
        }
    }

    private <T> T await(RedisFuture<T> future, String what) {
        try {
            return future.toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading '" + what + "' in Redis", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "Redis did not answer within " + timeout + " (distlock.operation-timeout)", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Redis failed: " + e.getCause(), e.getCause());
        }
    }

    @SuppressWarnings("unchecked")
    private static RedisClusterAsyncCommands<byte[], byte[]> bytesCommands(RedisClusterAsyncCommands<?, ?> commands) {
        return (RedisClusterAsyncCommands<byte[], byte[]>) commands;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
