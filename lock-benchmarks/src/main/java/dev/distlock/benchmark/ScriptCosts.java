package dev.distlock.benchmark;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a lock+unlock of a free key costs inside Redis, measured by Redis itself: one EVAL runs a
 * library's two scripts as Lua functions many times between two {@code TIME} calls, so neither the
 * network, nor a client, nor the parsing of a command's arguments is in the figure; only the scripts'
 * own work. Next to distlock's scripts and the raw floor's, it times each command distlock's scripts
 * send on that path, alone, with the same kind of arguments, so the table shows which guarantee costs
 * what.
 *
 * <p>This class is the harness and the command: it runs each subject in its timing loop on a
 * redis-server of its own; {@link ScriptCostSubjects} says what is timed, {@link ScriptCostTable}
 * renders the figures.
 *
 * <pre>
 * java -jar lock-benchmarks/target/lock-benchmarks.jar script-costs [rounds=5] [pairs=100000]
 * </pre>
 */
final class ScriptCosts {

    static final String COMMAND = "script-costs";

    /**
     * Keys the passes take turns over, so that each key's fencing counter is drawn from once every 64
     * passes, far more than a block of 65 microseconds apart: a counter drawn from faster would run ahead
     * of the clock and take the script's second write, which a real lock key does not.
     */
    static final int KEYS = 64;

    /**
     * Runs a subject's body {@code n} times and returns its nanoseconds per pass, less what the same loop
     * costs without the body. Each pass sees {@code i}, {@code req} (its text) and {@code key}.
     */
    private static final String LOOP = """
            local function now() local t = redis.call('TIME') return tonumber(t[1]) * 1000000 + tonumber(t[2]) end
            local n = tonumber(ARGV[1])
            local keys = {}
            for j = 1, %1$d do keys[j] = 'lock:{cost-' .. j .. '}' end
            %2$s
            for j = 1, %1$d do local i, req, key = j, tostring(j), keys[j] %3$s end
            local t0 = now()
            for i = 1, n do
                local req, key = tostring(i), keys[i %% %1$d + 1]
                %4$s
                %5$s
            end
            local t1 = now()
            for i = 1, n do
                local req, key = tostring(i), keys[i %% %1$d + 1]
                %4$s
            end
            local t2 = now()
            for j = 1, %1$d do local key = keys[j] %6$s end
            return math.floor(((t1 - t0) - (t2 - t1)) * 1000 / n)
            """;

    /**
     * One measured thing: Lua definitions, set-up per key, what each pass prepares (also run in the loop
     * whose cost is taken off), the measured body, and clean-up per key.
     */
    record Subject(String name, String definitions, String setup, String prepare, String body, String cleanup) {

        static Subject of(String name, String body, String cleanup) {
            return new Subject(name, "", "", "", body, cleanup);
        }

        String lua() {
            return LOOP.formatted(KEYS, definitions, setup, prepare, body, cleanup);
        }
    }

    /** A subject with its nanoseconds per pass over the rounds. */
    record Cost(Subject subject, Spread nanos) {}

    private ScriptCosts() {}

    /** Every subject, {@code rounds} times in turn, {@code pairs} passes each, on the Redis at {@code host:port}. */
    static Map<String, List<Cost>> measure(String host, int port, int rounds, int pairs) {
        Map<String, List<Subject>> groups = new LinkedHashMap<>();
        groups.put("scripts", ScriptCostSubjects.scripts());
        groups.put("steps", ScriptCostSubjects.steps());
        groups.put("number", ScriptCostSubjects.numberArgument());
        groups.put("layout", ScriptCostSubjects.layout());
        Map<Subject, List<Double>> nanos = new LinkedHashMap<>();
        // one EVAL runs for a second or more
        RedisClient client = RedisClient.create(RedisURI.builder()
                .withHost(host)
                .withPort(port)
                .withTimeout(Duration.ofMinutes(1))
                .build());
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            for (int round = 0; round < rounds; round++) {
                for (List<Subject> group : groups.values()) {
                    for (Subject subject : group) {
                        Long perPass = redis.eval(
                                subject.lua(), ScriptOutputType.INTEGER, new String[0], Integer.toString(pairs));
                        nanos.computeIfAbsent(subject, s -> new ArrayList<>()).add(perPass.doubleValue());
                    }
                }
            }
        } finally {
            ClientShutdown.shutdown(client);
        }
        Map<String, List<Cost>> costs = new LinkedHashMap<>();
        groups.forEach((name, group) -> costs.put(
                name,
                group.stream().map(s -> new Cost(s, Spread.of(nanos.get(s)))).toList()));
        return costs;
    }

    /** {@code script-costs [rounds=N] [pairs=N]}: starts its own redis-server and prints the table. */
    static int main(String[] args, PrintStream out, PrintStream err) {
        int rounds = 5;
        int pairs = 100_000;
        for (String arg : args) {
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            String value = eq < 0 ? "" : arg.substring(eq + 1);
            try {
                switch (name) {
                    case "rounds" -> rounds = positive(name, value);
                    case "pairs" -> pairs = positive(name, value);
                    default -> {
                        err.println("lock-benchmarks script-costs: unknown setting '" + arg
                                + "'; it takes rounds=N and pairs=N, for example script-costs rounds=5 pairs=100000");
                        return 2;
                    }
                }
            } catch (IllegalArgumentException e) {
                err.println("lock-benchmarks script-costs: " + e.getMessage());
                return 2;
            }
        }
        try (RedisServer redis = RedisServer.start()) {
            String version = BenchmarkRunner.redisVersion(redis.query("INFO", "server"));
            out.println(ScriptCostTable.markdown(
                    measure(redis.host(), redis.port(), rounds, pairs), rounds, pairs, version));
        }
        return 0;
    }

    private static int positive(String name, String value) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // told below
        }
        throw new IllegalArgumentException(
                name + "=" + value + " is not a positive whole number; give one, for example " + name + "=5");
    }
}
