package dev.distlock.benchmark;

import io.lettuce.core.api.sync.RedisServerCommands;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Redis {@code INFO commandstats} call counters, to see how many commands each library spends per
 * lock+unlock. Redis counts commands run inside Lua scripts here too, so an EVALSHA whose script
 * does HSET and PEXPIRE shows as three calls; the breakdown tells them apart.
 */
final class CommandStats {

    /**
     * Sent by the benchmark itself, not by the libraries: INFO and FLUSHALL by the parent,
     * INCRBY/DECRBY by the cross-process occupancy check.
     */
    private static final Set<String> OURS = Set.of("info", "flushall", "incrby", "decrby");

    /** Per-op rates below this are connection set-up and background noise, not the lock path. */
    private static final double NOISE = 0.005;

    private CommandStats() {
    }

    static Map<String, Long> snapshot(RedisServerCommands<String, String> admin) {
        Map<String, Long> calls = new HashMap<>();
        for (String line : admin.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                int from = line.indexOf("calls=") + "calls=".length();
                int to = line.indexOf(',', from);
                calls.put(name, Long.parseLong(line.substring(from, to < 0 ? line.length() : to)));
            }
        }
        return calls;
    }

    /** Calls per op of each command, most frequent first, without the benchmark's own commands. */
    static Map<String, Double> perOp(Map<String, Long> before, Map<String, Long> after, long ops) {
        Map<String, Double> rates = new LinkedHashMap<>();
        if (ops <= 0) {
            return rates;
        }
        after.entrySet().stream()
                .filter(e -> !OURS.contains(e.getKey()))
                .map(e -> Map.entry(e.getKey(), (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / (double) ops))
                .filter(e -> e.getValue() >= NOISE)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> rates.put(e.getKey(), e.getValue()));
        return rates;
    }
}
