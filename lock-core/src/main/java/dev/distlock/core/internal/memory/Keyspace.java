package dev.distlock.core.internal.memory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The keys of a {@link MemoryRedis}: each a string, hash, list or sorted set with an optional expiry
 * time, gone once that time has passed. Only the store's own thread touches it, so it takes no lock.
 * Expired keys are dropped when looked up, as Redis drops them lazily, and by {@link #sweep}.
 */
final class Keyspace {

    /** Redis' types of the keys the scripts use, named as TYPE names them. */
    enum Type {
        STRING("string"),
        HASH("hash"),
        LIST("list"),
        ZSET("zset");

        final String redisName;

        Type(String redisName) {
            this.redisName = redisName;
        }

        static Type named(String redisName) {
            for (Type type : values()) {
                if (type.redisName.equals(redisName)) {
                    return type;
                }
            }
            throw new IllegalArgumentException("no such type: " + redisName);
        }
    }

    /**
     * One key's value: a {@code String}, a {@code LinkedHashMap<String, String>} (hash, in insertion
     * order as a small Redis hash is), an {@code ArrayList<String>} (list) or a {@code HashMap<String,
     * Double>} (sorted set, member to score); {@code expireAtMs} is -1 for none.
     */
    static final class Slot {
        final Type type;
        final Object value;
        long expireAtMs;

        Slot(Type type, Object value, long expireAtMs) {
            this.type = type;
            this.value = value;
            this.expireAtMs = expireAtMs;
        }
    }

    /** Thrown by a typed lookup of a key that holds another type; commands answer it as Redis does. */
    static final class WrongType extends RuntimeException {
        WrongType() {
            super("WRONGTYPE Operation against a key holding the wrong kind of value", null, false, false);
        }
    }

    private final Map<String, Slot> slots = new HashMap<>();
    /** The keys that have an expiry time, for the sweep. */
    private final Map<String, Slot> expiring = new HashMap<>();

    /** The key's slot, or null when absent or expired at {@code nowMs} (then it is dropped). */
    @Nullable
    Slot lookup(String key, long nowMs) {
        Slot slot = slots.get(key);
        if (slot != null && slot.expireAtMs >= 0 && slot.expireAtMs <= nowMs) {
            remove(key);
            return null;
        }
        return slot;
    }

    /** The key's value when it has {@code type}, null when absent; {@link WrongType} when it has another type. */
    @Nullable
    Object lookup(String key, Type type, long nowMs) {
        Slot slot = lookup(key, nowMs);
        if (slot == null) {
            return null;
        }
        if (slot.type != type) {
            throw new WrongType();
        }
        return slot.value;
    }

    @SuppressWarnings("unchecked")
    @Nullable
    LinkedHashMap<String, String> hash(String key, long nowMs) {
        return (LinkedHashMap<String, String>) lookup(key, Type.HASH, nowMs);
    }

    @SuppressWarnings("unchecked")
    @Nullable
    ArrayList<String> list(String key, long nowMs) {
        return (ArrayList<String>) lookup(key, Type.LIST, nowMs);
    }

    @SuppressWarnings("unchecked")
    @Nullable
    HashMap<String, Double> zset(String key, long nowMs) {
        return (HashMap<String, Double>) lookup(key, Type.ZSET, nowMs);
    }

    /** The key's hash, made empty when absent; {@link WrongType} when it holds another type. */
    LinkedHashMap<String, String> hashForWrite(String key, long nowMs) {
        return forWrite(key, Type.HASH, nowMs, LinkedHashMap::new);
    }

    ArrayList<String> listForWrite(String key, long nowMs) {
        return forWrite(key, Type.LIST, nowMs, ArrayList::new);
    }

    HashMap<String, Double> zsetForWrite(String key, long nowMs) {
        return forWrite(key, Type.ZSET, nowMs, HashMap::new);
    }

    @SuppressWarnings("unchecked")
    private <T> T forWrite(String key, Type type, long nowMs, Supplier<T> empty) {
        Object value = lookup(key, type, nowMs);
        if (value == null) {
            value = empty.get();
            put(key, new Slot(type, value, -1));
        }
        return (T) value;
    }

    /** Sets a key, replacing whatever it held, with the expiry the slot carries. */
    void put(String key, Slot slot) {
        slots.put(key, slot);
        expiring.remove(key);
        if (slot.expireAtMs >= 0) {
            expiring.put(key, slot);
        }
    }

    /** Gives an existing key an expiry time, or takes it away with -1. */
    void expireAt(String key, Slot slot, long expireAtMs) {
        slot.expireAtMs = expireAtMs;
        if (expireAtMs >= 0) {
            expiring.put(key, slot);
        } else {
            expiring.remove(key);
        }
    }

    boolean remove(String key) {
        expiring.remove(key);
        return slots.remove(key) != null;
    }

    /** Deletes a hash, list or sorted set that became empty, as Redis does. */
    void removeIfEmpty(String key, Object value) {
        boolean empty = value instanceof Map<?, ?> map ? map.isEmpty() : ((List<?>) value).isEmpty();
        if (empty) {
            remove(key);
        }
    }

    /** Drops every key whose time has passed, so that keys nobody looks up again do not pile up. */
    int sweep(long nowMs) {
        int dropped = 0;
        for (Iterator<Map.Entry<String, Slot>> it = expiring.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Slot> entry = it.next();
            if (entry.getValue().expireAtMs <= nowMs) {
                it.remove();
                slots.remove(entry.getKey());
                dropped++;
            }
        }
        return dropped;
    }

    int size() {
        return slots.size();
    }
}
