package dev.distlock.benchmark;

import io.lettuce.core.api.sync.RedisServerCommands;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Redis {@code INFO commandstats} call counters and {@code INFO cpu}, to see how many commands and
 * how much server CPU each library spends per lock+unlock. Redis counts commands run inside Lua
 * scripts here too, so an EVALSHA whose script does HSET and PEXPIRE shows as three calls; the
 * breakdown tells them apart.
 */
final class CommandStats {

    /**
     * Sent by the benchmark itself, not by the libraries (its other commands, such as the held-locks
     * check, run outside the measured window).
     */
    private static final Set<String> OURS = Set.of("info", "flushall");

    /** Per-op rates below this are connection set-up and background noise, not the lock path. */
    private static final double NOISE = 0.005;

    private CommandStats() {}

    /**
     * Counters at one moment.
     *
     * @param calls calls per command name
     * @param cpuMicros user + system CPU the server process has used
     */
    record Snapshot(Map<String, Long> calls, long cpuMicros) {

        /** One word for a forked run's report line: {@code cpuMicros;name=calls,name=calls}. */
        String encode() {
            StringBuilder b = new StringBuilder(Long.toString(cpuMicros)).append(';');
            calls.forEach((name, n) -> b.append(name).append('=').append(n).append(','));
            return b.toString();
        }

        static Snapshot decode(String word) {
            int semi = word.indexOf(';');
            Map<String, Long> calls = new HashMap<>();
            for (String pair : word.substring(semi + 1).split(",")) {
                if (!pair.isEmpty()) {
                    int eq = pair.indexOf('=');
                    calls.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
                }
            }
            return new Snapshot(calls, Long.parseLong(word.substring(0, semi)));
        }
    }

    static Snapshot snapshot(RedisServerCommands<String, String> admin) {
        Map<String, Long> calls = new HashMap<>();
        for (String line : admin.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                int from = line.indexOf("calls=") + "calls=".length();
                int to = line.indexOf(',', from);
                calls.put(name, Long.parseLong(line.substring(from, to < 0 ? line.length() : to)));
            }
        }
        double cpuSeconds = 0;
        for (String line : admin.info("cpu").split("\r?\n")) {
            // used_cpu_sys / used_cpu_user of the whole server, not the _children or _main_thread lines
            if (line.startsWith("used_cpu_sys:") || line.startsWith("used_cpu_user:")) {
                cpuSeconds +=
                        Double.parseDouble(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return new Snapshot(calls, Math.round(cpuSeconds * 1e6));
    }

    /** Server CPU per op in microseconds. */
    static double cpuMicrosPerOp(Snapshot before, Snapshot after, long ops) {
        return ops <= 0 ? -1 : (after.cpuMicros() - before.cpuMicros()) / (double) ops;
    }

    /** Calls per op of each command, most frequent first, without the benchmark's own commands. */
    static Map<String, Double> perOp(Snapshot before, Snapshot after, long ops) {
        Map<String, Double> rates = new LinkedHashMap<>();
        if (ops <= 0) {
            return rates;
        }
        after.calls().entrySet().stream()
                .filter(e -> !OURS.contains(e.getKey()))
                .map(e -> Map.entry(
                        e.getKey(), (e.getValue() - before.calls().getOrDefault(e.getKey(), 0L)) / (double) ops))
                .filter(e -> e.getValue() >= NOISE)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> rates.put(e.getKey(), e.getValue()));
        return rates;
    }

    /** Samples the counters as a {@link Workload} window opens and closes. */
    static final class Sampler implements Workload.Window {
        private final RedisServerCommands<String, String> admin;
        Snapshot before;
        Snapshot after;

        Sampler(RedisServerCommands<String, String> admin) {
            this.admin = admin;
        }

        @Override
        public void opened() {
            before = snapshot(admin);
        }

        @Override
        public void closed() {
            after = snapshot(admin);
        }
    }
}
