package dev.distlock.core.fence;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * A fence for values kept in Redis: {@link #set} writes a value only when its fencing token is at least
 * the last token written to the key, in one script, so a holder whose lock was lost cannot overwrite a
 * newer holder's value. The fence lives beside the value, at {@link #fenceKey(String)}, in the same Redis
 * Cluster slot.
 *
 * <pre>{@code
 * RedisFence fence = new RedisFence(connection.sync());     // Lettuce, standalone or Cluster
 * fence.set("stock:sku-1", "41", lock.currentFencingToken());
 * }</pre>
 *
 * The same token writes again (idempotent: a re-sent script or a re-entered lock is accepted).
 */
public final class RedisFence {

    /** The script's text (see its header for KEYS and ARGV), for clients other than Lettuce. */
    public static final String SCRIPT = load();

    private static final String SHA1 = sha1(SCRIPT);

    private final RedisScriptingCommands<String, String> redis;

    /** A fence that runs its script on {@code redis} (Lettuce's sync commands of a standalone or Cluster connection). */
    public RedisFence(RedisScriptingCommands<String, String> redis) {
        this.redis = Objects.requireNonNull(redis, "redis");
    }

    /**
     * Writes {@code value} at {@code key} under {@code token}, with no expiry.
     *
     * @throws FencedOffException when a larger token has been written to {@code key}
     */
    public void set(String key, String value, long token) {
        set(key, value, token, Duration.ZERO);
    }

    /**
     * Writes {@code value} at {@code key} under {@code token}; the value and its fence expire after {@code ttl}
     * ({@link Duration#ZERO}: never).
     *
     * @throws FencedOffException when a larger token has been written to {@code key}
     * @throws IllegalArgumentException when {@code ttl} is negative
     */
    public void set(String key, String value, long token, Duration ttl) {
        Objects.requireNonNull(value, "value");
        String[] keys = {key, fenceKey(key)};
        String[] args = {Long.toString(token), value, Long.toString(ttlMillis(ttl))};
        List<Object> reply;
        try {
            reply = redis.evalsha(SHA1, ScriptOutputType.MULTI, keys, args);
        } catch (RedisNoScriptException e) { // Redis restarted or flushed its scripts: send the text once
            reply = redis.eval(SCRIPT, ScriptOutputType.MULTI, keys, args);
        }
        accept(key, token, reply);
    }

    /**
     * The key of {@code key}'s fence, in the same Redis Cluster slot: {@code key + ":fence"} when the key has
     * a hash tag, else {@code "{" + key + "}:fence"} (a key without a tag hashes whole, as the tag does).
     *
     * @throws IllegalArgumentException when the key is empty, or has braces but no hash tag (its fence could not
     *     share its slot)
     */
    public static String fenceKey(String key) {
        Objects.requireNonNull(key, "key");
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        if (close > open + 1) {
            return key + ":fence";
        }
        if (key.isEmpty() || key.indexOf('{') >= 0 || key.indexOf('}') >= 0) {
            throw new IllegalArgumentException(
                    "fenced key '" + key + "' must be non-empty, and have either no braces or"
                            + " a hash tag such as {orders:42}: its fence must share its Redis Cluster slot");
        }
        return "{" + key + "}:fence";
    }

    /**
     * Reads the script's reply: returns when written, throws when refused.
     *
     * @throws FencedOffException when the reply says a larger token was written
     */
    public static void accept(String key, long token, List<?> reply) {
        if (reply == null || reply.size() != 2) {
            throw new IllegalStateException("unexpected reply of the fence script for '" + key + "': " + reply);
        }
        if (((Number) reply.get(0)).longValue() != 1) {
            throw new FencedOffException(key, token, ((Number) reply.get(1)).longValue());
        }
    }

    /** The TTL argument: ms, 0 for none. */
    public static long ttlMillis(Duration ttl) {
        if (ttl.isNegative()) {
            throw new IllegalArgumentException("fence ttl " + ttl + " is negative: give Duration.ZERO for no expiry");
        }
        return ttl.isZero() ? 0 : Math.max(1, ttl.toMillis());
    }

    private static String load() {
        try (InputStream in = RedisFence.class.getResourceAsStream("fenced-set.lua")) {
            if (in == null) {
                throw new IllegalStateException("fenced-set.lua is missing from the distlock-core jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
