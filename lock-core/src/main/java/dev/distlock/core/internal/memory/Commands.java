package dev.distlock.core.internal.memory;

import dev.distlock.core.internal.memory.Keyspace.Slot;
import dev.distlock.core.internal.memory.Keyspace.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.function.ToIntBiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The Redis commands the lock scripts call, run on a {@link Keyspace} as Redis 7 runs them, replies
 * and errors included. A reply is a {@code Long} (integer), a {@code String} (bulk), {@code null} (nil),
 * a {@code List} (array), a {@link Status} or a {@link Failure}.
 */
final class Commands {

    /** A status reply such as OK. */
    record Status(String text) {}

    /** An error reply, its message beginning with the error code (ERR, WRONGTYPE) as Redis' does. */
    record Failure(String message) {}

    private static final Status OK = new Status("OK");
    private static final Failure NOT_INTEGER = new Failure("ERR value is not an integer or out of range");
    private static final Failure NOT_FLOAT = new Failure("ERR value is not a valid float");
    private static final Failure SYNTAX = new Failure("ERR syntax error");

    private final Keyspace keys;
    /** Publishes a message, answering how many subscribers it reached. */
    private final ToIntBiFunction<String, String> publish;

    Commands(Keyspace keys, ToIntBiFunction<String, String> publish) {
        this.keys = keys;
        this.publish = publish;
    }

    /**
     * Runs one command. {@code nowMs} decides expiry (a script sees one time throughout, as in Redis),
     * {@code nowMicros} is what TIME answers.
     */
    @Nullable
    Object run(List<String> command, long nowMs, long nowMicros) {
        String name = command.get(0).toUpperCase(Locale.ROOT);
        List<String> a = command.subList(1, command.size());
        try {
            if (!Arity.accepts(name, a.size())) {
                return Arity.known(name)
                        ? new Failure("ERR Wrong number of args calling Redis command from script")
                        : new Failure("ERR Unknown Redis command called from script (MemoryRedis emulates only the"
                                + " commands the lock scripts use, not " + command.get(0) + ")");
            }
            return switch (name) {
                case "GET" -> keys.lookup(a.get(0), Type.STRING, nowMs);
                case "SET" -> Strings.set(keys, a, nowMs);
                case "DEL" ->
                    a.stream()
                            .filter(k -> keys.lookup(k, nowMs) != null && keys.remove(k))
                            .count();
                case "EXISTS" ->
                    a.stream().filter(k -> keys.lookup(k, nowMs) != null).count();
                case "PEXPIRE" -> pexpire(a, nowMs);
                case "PTTL" -> pttl(a.get(0), nowMs);
                case "PUBLISH" -> (long) publish.applyAsInt(a.get(0), a.get(1));
                case "TIME" ->
                    List.of(
                            Long.toString(Math.floorDiv(nowMicros, 1_000_000L)),
                            Long.toString(Math.floorMod(nowMicros, 1_000_000L)));
                case "HGET", "HSET", "HSETNX", "HDEL", "HEXISTS", "HGETALL", "HMGET" ->
                    Hashes.run(keys, name, a, nowMs);
                case "LINDEX", "LPOP", "LRANGE", "LREM", "RPUSH" -> Lists.run(keys, name, a, nowMs);
                case "ZADD", "ZREM", "ZSCORE" -> zset(name, a, nowMs);
                default -> throw new IllegalStateException("no case for " + name);
            };
        } catch (Keyspace.WrongType e) {
            return new Failure(e.getMessage());
        } catch (BadNumber e) {
            return e.reply;
        }
    }

    /** PEXPIRE with its NX, XX, GT and LT options (no TTL counts as an infinite one for GT and LT). */
    private Object pexpire(List<String> a, long nowMs) {
        long ms = integer(a.get(1));
        boolean nx = false, xx = false, gt = false, lt = false;
        for (String option : a.subList(2, a.size())) {
            switch (option.toUpperCase(Locale.ROOT)) {
                case "NX" -> nx = true;
                case "XX" -> xx = true;
                case "GT" -> gt = true;
                case "LT" -> lt = true;
                default -> {
                    return new Failure("ERR Unsupported option " + option);
                }
            }
        }
        if (nx && (xx || gt || lt)) {
            return new Failure("ERR NX and XX, GT or LT options at the same time are not compatible");
        }
        if (gt && lt) {
            return new Failure("ERR GT and LT options at the same time are not compatible");
        }
        if (ms > Long.MAX_VALUE - nowMs || ms < Long.MIN_VALUE + nowMs) {
            return new Failure("ERR invalid expire time in 'pexpire' command");
        }
        Slot slot = keys.lookup(a.get(0), nowMs);
        if (slot == null) {
            return 0L;
        }
        long when = nowMs + ms;
        long current = slot.expireAtMs;
        if ((nx && current >= 0)
                || (xx && current < 0)
                || (gt && (current < 0 || when <= current))
                || (lt && current >= 0 && when >= current)) {
            return 0L;
        }
        if (when <= nowMs) { // a time already past deletes the key
            keys.remove(a.get(0));
        } else {
            keys.expireAt(a.get(0), slot, when);
        }
        return 1L;
    }

    private long pttl(String key, long nowMs) {
        Slot slot = keys.lookup(key, nowMs);
        if (slot == null) {
            return -2;
        }
        return slot.expireAtMs < 0 ? -1 : Math.max(0, slot.expireAtMs - nowMs);
    }

    private Object zset(String name, List<String> a, long nowMs) {
        String key = a.get(0);
        switch (name) {
            case "ZADD" -> {
                if (a.size() % 2 != 1) {
                    return SYNTAX;
                }
                List<Double> scores = new ArrayList<>();
                for (int i = 1; i < a.size(); i += 2) {
                    scores.add(score(a.get(i))); // all parsed before any is added, as Redis does
                }
                HashMap<String, Double> zset = keys.zsetForWrite(key, nowMs);
                long added = 0;
                for (int i = 1; i < a.size(); i += 2) {
                    added += zset.put(a.get(i + 1), scores.get(i / 2)) == null ? 1 : 0;
                }
                return added;
            }
            case "ZREM" -> {
                HashMap<String, Double> zset = keys.zset(key, nowMs);
                if (zset == null) {
                    return 0L;
                }
                long removed = a.subList(1, a.size()).stream()
                        .filter(m -> zset.remove(m) != null)
                        .count();
                keys.removeIfEmpty(key, zset);
                return removed;
            }
            default -> {
                HashMap<String, Double> zset = keys.zset(key, nowMs);
                Double score = zset == null ? null : zset.get(a.get(1));
                return score == null ? null : NumberText.g17(score);
            }
        }
    }

    /** A Redis integer argument: digits with an optional minus, no sign, space or leading zero else. */
    static long integer(String text) {
        if (!text.matches("-?(0|[1-9][0-9]{0,18})") || text.equals("-0")) {
            throw new BadNumber(NOT_INTEGER);
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new BadNumber(NOT_INTEGER);
        }
    }

    /** A sorted-set score as Redis reads it (strtod: decimal or inf, never NaN). */
    static double score(String text) {
        String t = text.toLowerCase(Locale.ROOT);
        if (t.matches("[+-]?inf(inity)?")) {
            return t.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (!t.matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)(e[+-]?[0-9]+)?")) {
            throw new BadNumber(NOT_FLOAT);
        }
        return Double.parseDouble(t);
    }

    /** A number argument Redis refuses; answered with its error reply. */
    static final class BadNumber extends RuntimeException {
        final Failure reply;

        BadNumber(Failure reply) {
            super(reply.message(), null, false, false);
            this.reply = reply;
        }
    }

    /** SET with the options the scripts use (NX, XX, GET, EX, PX, KEEPTTL). */
    static final class Strings {
        private Strings() {}

        static @Nullable Object set(Keyspace keys, List<String> a, long nowMs) {
            String key = a.get(0);
            boolean nx = false, xx = false, get = false, keepTtl = false;
            long expireAtMs = -1;
            for (int i = 2; i < a.size(); i++) {
                String option = a.get(i).toUpperCase(Locale.ROOT);
                switch (option) {
                    case "NX" -> nx = true;
                    case "XX" -> xx = true;
                    case "GET" -> get = true;
                    case "KEEPTTL" -> keepTtl = true;
                    case "PX", "EX" -> {
                        if (i + 1 >= a.size() || expireAtMs >= 0) {
                            return SYNTAX;
                        }
                        long amount = integer(a.get(++i));
                        long ms = option.equals("EX") ? amount * 1000 : amount;
                        if (amount <= 0 || ms / (option.equals("EX") ? 1000 : 1) != amount) {
                            return new Failure("ERR invalid expire time in 'set' command");
                        }
                        expireAtMs = nowMs + ms;
                    }
                    default -> {
                        return SYNTAX;
                    }
                }
            }
            if ((nx && xx) || (keepTtl && expireAtMs >= 0)) {
                return SYNTAX;
            }
            Slot old = keys.lookup(key, nowMs);
            if (get && old != null && old.type != Type.STRING) {
                throw new Keyspace.WrongType();
            }
            Object reply = get ? (old == null ? null : old.value) : OK;
            if ((nx && old != null) || (xx && old == null)) {
                return get ? reply : null;
            }
            long keep = keepTtl && old != null ? old.expireAtMs : -1;
            keys.put(key, new Slot(Type.STRING, a.get(1), expireAtMs >= 0 ? expireAtMs : keep));
            return reply;
        }
    }

    /** The arities of the emulated commands, as COMMAND INFO gives them (negative: at least). */
    static final class Arity {
        private static final java.util.Map<String, Integer> ARITY = new LinkedHashMap<>();

        static {
            String table = "GET 2 SET -3 DEL -2 EXISTS -2 PEXPIRE -3 PTTL 2 PUBLISH 3 TIME 1 HGET 3 HSET -4 HSETNX 4"
                    + " HDEL -3 HEXISTS 3 HGETALL 2 HMGET -3 LINDEX 3 LPOP -2 LRANGE 4 LREM 4 RPUSH -3 ZADD -4"
                    + " ZREM -3 ZSCORE 3";
            String[] words = table.split(" ");
            for (int i = 0; i < words.length; i += 2) {
                ARITY.put(words[i], Integer.parseInt(words[i + 1]));
            }
        }

        private Arity() {}

        static boolean known(String name) {
            return ARITY.containsKey(name);
        }

        /** Whether {@code name} takes {@code args} arguments (the command's name not counted). */
        static boolean accepts(String name, int args) {
            Integer arity = ARITY.get(name);
            if (arity == null) {
                return false;
            }
            return arity >= 0 ? args + 1 == arity : args + 1 >= -arity;
        }
    }
}
