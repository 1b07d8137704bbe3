package dev.distlock.spring.redis;

import dev.distlock.core.HeldLock;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What an instance knows of its own holds and Redis does not keep: when each began and which thread holds
 * it. Published by {@link InstanceRecords} beside the instance's record, under
 * {@code <prefix>~holds:<client id>}, as one line per hold (token, grant time in epoch milliseconds, thread
 * name, key; the names URL-encoded), at most {@value #MAX} holds, oldest first; read back by any instance's
 * Actuator endpoint to show held-for beside the holders it reads from the lock hashes. Infrastructure of the
 * starter, not API.
 */
public final class PublishedHolds {

    /** The most holds one instance publishes (its oldest ones). */
    static final int MAX = 1000;

    private PublishedHolds() {}

    /**
     * One published hold.
     *
     * @param thread the name of the thread that holds it, or {@code null} for a LockHandle's hold
     * @param since when it was granted, on the holding instance's clock
     */
    public record Hold(@Nullable String thread, Instant since) {}

    /** The key of a client's published holds. */
    public static String key(String keyPrefix, String clientId) {
        return keyPrefix + "~holds:" + clientId;
    }

    /** The text published for {@code holds}. */
    static String encode(List<HeldLock> holds) {
        return text(holds, true);
    }

    /** The same text without the grant times, whose last digits vary between snapshots of the same holds. */
    static String signature(List<HeldLock> holds) {
        return text(holds, false);
    }

    private static String text(List<HeldLock> holds, boolean withTimes) {
        StringBuilder text = new StringBuilder();
        for (HeldLock hold : holds.subList(0, Math.min(holds.size(), MAX))) {
            text.append(hold.fencingToken())
                    .append(' ')
                    .append(withTimes ? hold.since().toEpochMilli() : 0)
                    .append(' ')
                    .append(hold.ownerThread() == null ? "-" : "t" + encodeName(hold.ownerThread()))
                    .append(' ')
                    .append(encodeName(hold.lock().key()))
                    .append('\n');
        }
        return text.toString();
    }

    /**
     * The holds {@code clientId}'s instance published, by {@link #holdId(String, long)}; {@code null} when it
     * published none (no record: the instance stopped, crashed or does not publish).
     */
    public static @Nullable Map<String, Hold> read(StringRedisTemplate redis, String keyPrefix, String clientId) {
        String text = redis.opsForValue().get(key(keyPrefix, clientId));
        return text == null ? null : parse(text);
    }

    /** The holds in a published text, by {@link #holdId(String, long)}. */
    static Map<String, Hold> parse(String text) {
        Map<String, Hold> holds = new HashMap<>();
        for (String line : text.split("\n")) {
            String[] parts = line.split(" ", 4);
            if (parts.length < 4) {
                continue;
            }
            try {
                String thread = parts[2].startsWith("t") ? decodeName(parts[2].substring(1)) : null;
                holds.putIfAbsent(
                        holdId(decodeName(parts[3]), Long.parseLong(parts[0])),
                        new Hold(thread, Instant.ofEpochMilli(Long.parseLong(parts[1]))));
            } catch (IllegalArgumentException e) {
                // a line this version cannot read: that hold's held-for stays unknown
            }
        }
        return holds;
    }

    /** A hold's id among the published ones: its lock's key and fencing token. */
    public static String holdId(String key, long token) {
        return token + " " + key;
    }

    private static String encodeName(String name) {
        return URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    private static String decodeName(String encoded) {
        return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
    }
}
