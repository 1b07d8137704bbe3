package dev.distlock.core.internal.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** The list commands the lock scripts call (LINDEX, LPOP, LRANGE, LREM, RPUSH), as Redis 7 runs them. */
final class Lists {

    private Lists() {}

    static @Nullable Object run(Keyspace keys, String name, List<String> a, long nowMs) {
        String key = a.get(0);
        switch (name) {
            case "RPUSH" -> {
                ArrayList<String> list = keys.listForWrite(key, nowMs);
                list.addAll(a.subList(1, a.size()));
                return (long) list.size();
            }
            case "LINDEX" -> {
                ArrayList<String> list = keys.list(key, nowMs);
                if (list == null) {
                    return null; // Redis looks the key up before it reads the index
                }
                long index = Commands.integer(a.get(1));
                long at = index < 0 ? list.size() + index : index;
                return at < 0 || at >= list.size() ? null : list.get((int) at);
            }
            case "LRANGE" -> {
                long start = Commands.integer(a.get(1));
                long stop = Commands.integer(a.get(2));
                ArrayList<String> list = keys.list(key, nowMs);
                int size = list == null ? 0 : list.size();
                long from = Math.max(0, start < 0 ? size + start : start);
                long to = Math.min(size - 1L, stop < 0 ? size + stop : stop);
                return list == null || from > to
                        ? List.of()
                        : new ArrayList<Object>(list.subList((int) from, (int) to + 1));
            }
            case "LREM" -> {
                long count = Commands.integer(a.get(1));
                ArrayList<String> list = keys.list(key, nowMs);
                return list == null ? 0L : remove(keys, key, list, count, a.get(2));
            }
            default -> { // LPOP
                return pop(keys, key, a, nowMs);
            }
        }
    }

    private static @Nullable Object pop(Keyspace keys, String key, List<String> a, long nowMs) {
        if (a.size() > 2) {
            return new Commands.Failure("ERR syntax error");
        }
        long count = a.size() == 2 ? Commands.integer(a.get(1)) : -1;
        if (a.size() == 2 && count < 0) {
            return new Commands.Failure("ERR value is out of range, must be positive");
        }
        ArrayList<String> list = keys.list(key, nowMs);
        if (list == null) {
            return null;
        }
        if (count < 0) {
            String head = list.remove(0);
            keys.removeIfEmpty(key, list);
            return head;
        }
        List<Object> popped = new ArrayList<>();
        while (popped.size() < count && !list.isEmpty()) {
            popped.add(list.remove(0));
        }
        keys.removeIfEmpty(key, list);
        return popped;
    }

    /** LREM: count > 0 from the head, count < 0 from the tail, 0 all. */
    private static long remove(Keyspace keys, String key, ArrayList<String> list, long count, String element) {
        long removed = 0;
        long limit = count == 0 ? Long.MAX_VALUE : Math.abs(count);
        if (count >= 0) {
            for (int i = 0; i < list.size() && removed < limit; ) {
                if (Objects.equals(list.get(i), element)) {
                    list.remove(i);
                    removed++;
                } else {
                    i++;
                }
            }
        } else {
            for (int i = list.size() - 1; i >= 0 && removed < limit; i--) {
                if (Objects.equals(list.get(i), element)) {
                    list.remove(i);
                    removed++;
                }
            }
        }
        keys.removeIfEmpty(key, list);
        return removed;
    }
}
