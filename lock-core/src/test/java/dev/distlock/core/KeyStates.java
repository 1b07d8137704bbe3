package dev.distlock.core;

import dev.distlock.core.internal.memory.MemoryRedis.Entry;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The state of named keys in the real Redis (type, value, PTTL) read with plain commands, no DUMP and
 * no script, as {@link Entry}s a MemoryRedis loads and dumps; and the comparison of two such states,
 * where clock-derived numbers may differ by the time that passed between the two sides' runs.
 */
final class KeyStates {

    private KeyStates() {}

    /**
     * The present keys among {@code keys} with their state, read in one pipeline without waiting for a
     * TYPE first: every read of every type is sent for each key (GET, HGETALL, LRANGE, ZRANGE, and PTTL),
     * and the one that finds a value tells the type; those that meet another type answer WRONGTYPE, which
     * is ignored. So a caller can send the reads right before and after a script call, without a round trip.
     */
    static CompletableFuture<Map<String, Entry>> read(RedisAsyncCommands<String, String> redis, List<String> keys) {
        Map<String, List<CompletableFuture<?>>> reads = new LinkedHashMap<>();
        for (String key : keys) {
            reads.put(
                    key,
                    List.of(
                            orNull(redis.get(key)),
                            orNull(redis.hgetall(key)),
                            orNull(redis.lrange(key, 0, -1)),
                            orNull(redis.zrangeWithScores(key, 0, -1).thenApply(KeyStates::scores)),
                            orNull(redis.pttl(key))));
        }
        return CompletableFuture.allOf(
                        reads.values().stream().flatMap(List::stream).toArray(CompletableFuture[]::new))
                .thenApply(done -> {
                    Map<String, Entry> entries = new LinkedHashMap<>();
                    reads.forEach((key, r) -> {
                        Long ttl = (Long) r.get(4).join();
                        String[] types = {"string", "hash", "list", "zset"};
                        for (int i = 0; i < types.length; i++) {
                            Object value = r.get(i).join();
                            boolean empty = value == null
                                    || (value instanceof Map<?, ?> map && map.isEmpty())
                                    || (value instanceof List<?> list && list.isEmpty());
                            if (!empty && ttl != null && ttl != -2) {
                                entries.put(key, new Entry(types[i], value, ttl));
                            }
                        }
                    });
                    return entries;
                });
    }

    private static CompletableFuture<Object> orNull(CompletionStage<?> read) {
        return read.handle((value, error) -> error == null ? (Object) value : null)
                .toCompletableFuture();
    }

    private static Map<String, Double> scores(List<ScoredValue<String>> members) {
        Map<String, Double> scores = new LinkedHashMap<>();
        members.forEach(m -> scores.put(m.getValue(), m.getScore()));
        return scores;
    }

    /**
     * Where two states of {@code keys} differ, one line per key ({@code driftMs}: how far the two sides'
     * clocks may be apart). A key present on one side only is no difference when its TTL was about to end.
     */
    static List<String> differences(
            List<String> keys, Map<String, Entry> redis, Map<String, Entry> memory, Tolerance tolerance) {
        List<String> differences = new ArrayList<>();
        for (String key : keys) {
            Entry r = redis.get(key);
            Entry m = memory.get(key);
            if (r == null || m == null) {
                Entry only = r != null ? r : m;
                if (only != null && !(only.ttlMillis() >= 0 && only.ttlMillis() <= tolerance.driftMs())) {
                    differences.add(key + " only in " + (r != null ? "Redis" : "memory"));
                }
            } else if (!r.type().equals(m.type())) {
                differences.add(key + " type " + r.type() + " vs " + m.type());
            } else if (!sameValue(r.value(), m.value(), tolerance)) {
                differences.add(key + " value");
            } else if ((r.ttlMillis() < 0 || m.ttlMillis() < 0)
                    ? r.ttlMillis() != m.ttlMillis()
                    : Math.abs(r.ttlMillis() - m.ttlMillis()) > tolerance.driftMs()) {
                differences.add(key + " TTL " + r.ttlMillis() + " vs " + m.ttlMillis());
            }
        }
        return differences;
    }

    private static boolean sameValue(Object r, Object m, Tolerance tolerance) {
        if (r instanceof Map<?, ?> rm && m instanceof Map<?, ?> mm) {
            return rm.keySet().equals(mm.keySet())
                    && rm.keySet().stream().allMatch(k -> tolerance.same(rm.get(k), mm.get(k)));
        }
        return tolerance.same(r, m);
    }

    /**
     * How far apart two runs' clock-derived numbers may be: the time between the TIME read before the
     * Redis run (the memory run's clock) and the one after it. Microsecond clocks (10^15 and up) within
     * {@code driftMicros}; anything else from 20 up within {@link #driftMs} (millisecond timestamps,
     * TTLs, deadlines, remaining ms in replies); smaller numbers (counts, reply codes) exactly.
     */
    record Tolerance(long driftMicros) {

        /** Numbers below this are counts and codes, compared exactly; from it up they may be clock-derived. */
        static final long SMALLEST_CLOCK_NUMBER = 20;

        /** The drift in ms, rounded up, plus 1 ms for the two sides' rounding of microseconds to ms. */
        long driftMs() {
            return driftMicros / 1_000 + 2;
        }

        /**
         * A call that finds a key whose TTL ends within this is not compared: besides expiring in one run and
         * not the other, what it counts down to (a writer's mark, a queue deadline) reaches replies as a few
         * remaining ms, below {@link #SMALLEST_CLOCK_NUMBER} and so compared exactly, yet a ms apart.
         */
        long inconclusiveWithinMs() {
            return Math.max(driftMs(), SMALLEST_CLOCK_NUMBER);
        }

        boolean same(Object a, Object b) {
            if (Objects.equals(a, b)) {
                return true;
            }
            if (a instanceof Number x && b instanceof Number y) {
                return closeEnough(x.doubleValue(), y.doubleValue());
            }
            if (a instanceof List<?> x && b instanceof List<?> y) {
                if (x.size() != y.size()) {
                    return false;
                }
                for (int i = 0; i < x.size(); i++) {
                    if (!same(x.get(i), y.get(i))) {
                        return false;
                    }
                }
                return true;
            }
            if (a instanceof String x && b instanceof String y) {
                String[] xs = x.split(" ", -1);
                String[] ys = y.split(" ", -1);
                if (xs.length != ys.length) {
                    return false;
                }
                for (int i = 0; i < xs.length; i++) {
                    if (!xs[i].equals(ys[i])
                            && !(isInteger(xs[i])
                                    && isInteger(ys[i])
                                    && closeEnough(Long.parseLong(xs[i]), Long.parseLong(ys[i])))) {
                        return false;
                    }
                }
                return true;
            }
            return false;
        }

        private boolean closeEnough(double x, double y) {
            double larger = Math.max(Math.abs(x), Math.abs(y));
            if (larger >= 1e15) {
                return Math.abs(x - y) <= driftMicros;
            }
            return larger >= SMALLEST_CLOCK_NUMBER && Math.abs(x - y) <= driftMs();
        }

        private static boolean isInteger(String word) {
            return word.matches("-?[0-9]{1,18}");
        }
    }
}
