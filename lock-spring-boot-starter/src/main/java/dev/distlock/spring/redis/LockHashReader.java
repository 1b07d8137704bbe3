package dev.distlock.spring.redis;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Reads a lock's hash, read-only, on the application's Redis connection (the one the lock client shares):
 * one HGETALL, bounded by distlock.operation-timeout on Lettuce, by the connection's own timeout on other
 * clients. The keys are lock-core's layout, {@code <prefix>{<key>}}. Infrastructure of the starter, not API.
 */
public final class LockHashReader {

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
        byte[] redisKey = redisKey(key).getBytes(StandardCharsets.UTF_8);
        try (RedisConnection connection = connections.getConnection()) {
            Map<byte[], byte[]> raw;
            if (connection.getNativeConnection() instanceof RedisClusterAsyncCommands<?, ?> lettuce) {
                @SuppressWarnings("unchecked")
                RedisClusterAsyncCommands<byte[], byte[]> commands =
                        (RedisClusterAsyncCommands<byte[], byte[]>) lettuce;
                raw = commands.hgetall(redisKey).toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } else {
                raw = connection.hashCommands().hGetAll(redisKey);
            }
            Map<String, String> fields = new LinkedHashMap<>();
            if (raw != null) {
                raw.forEach((field, value) -> fields.put(text(field), text(value)));
            }
            return fields;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading lock '" + key + "' in Redis", e);
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "Redis did not answer within " + timeout + " (distlock.operation-timeout)", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("Redis failed: " + e.getCause(), e.getCause());
        } catch (RuntimeException e) {
            throw new IllegalStateException("Redis failed: " + e, e);
        }
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
