package dev.distlock.core.internal.memory;

import dev.distlock.core.internal.memory.Commands.Failure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The hash commands the lock scripts call (HGET, HSET, HSETNX, HDEL, HEXISTS, HGETALL, HMGET), as Redis 7 runs them. */
final class Hashes {

    private Hashes() {}

    static @Nullable Object run(Keyspace keys, String name, List<String> a, long nowMs) {
        String key = a.get(0);
        switch (name) {
            case "HSET" -> {
                if (a.size() % 2 != 1) {
                    return new Failure("ERR Wrong number of args calling Redis command from script");
                }
                LinkedHashMap<String, String> hash = keys.hashForWrite(key, nowMs);
                long added = 0;
                for (int i = 1; i < a.size(); i += 2) {
                    added += hash.put(a.get(i), a.get(i + 1)) == null ? 1 : 0;
                }
                return added;
            }
            case "HSETNX" -> {
                LinkedHashMap<String, String> hash = keys.hashForWrite(key, nowMs);
                return hash.putIfAbsent(a.get(1), a.get(2)) == null ? 1L : 0L;
            }
            case "HDEL" -> {
                LinkedHashMap<String, String> hash = keys.hash(key, nowMs);
                if (hash == null) {
                    return 0L;
                }
                long removed = 0;
                for (String field : a.subList(1, a.size())) {
                    removed += hash.remove(field) != null ? 1 : 0;
                }
                keys.removeIfEmpty(key, hash);
                return removed;
            }
            default -> {
                return read(keys.hash(key, nowMs), name, a);
            }
        }
    }

    private static @Nullable Object read(@Nullable Map<String, String> hash, String name, List<String> a) {
        switch (name) {
            case "HGET" -> {
                return hash == null ? null : hash.get(a.get(1));
            }
            case "HEXISTS" -> {
                return hash != null && hash.containsKey(a.get(1)) ? 1L : 0L;
            }
            case "HGETALL" -> {
                List<Object> all = new ArrayList<>();
                if (hash != null) {
                    hash.forEach((field, value) -> {
                        all.add(field);
                        all.add(value);
                    });
                }
                return all;
            }
            default -> { // HMGET
                List<Object> values = new ArrayList<>();
                for (String field : a.subList(1, a.size())) {
                    values.add(hash == null ? null : hash.get(field));
                }
                return values;
            }
        }
    }
}
