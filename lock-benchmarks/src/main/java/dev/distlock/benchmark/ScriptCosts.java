package dev.distlock.benchmark;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.script.LockScript;
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
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What a lock+unlock of a free key costs inside Redis, measured by Redis itself: one EVAL runs a
 * library's two scripts as Lua functions many times between two {@code TIME} calls, so neither the
 * network, nor a client, nor the parsing of a command's arguments is in the figure; only the scripts'
 * own work. Next to distlock's scripts and the raw floor's, it times each command distlock's scripts
 * send on that path, alone, with the same kind of arguments, so the table shows which guarantee costs
 * what.
 *
 * <pre>
 * java -jar lock-benchmarks/target/lock-benchmarks.jar script-costs [rounds=5] [pairs=100000]
 * </pre>
 */
final class ScriptCosts {

    static final String COMMAND = "script-costs";

    /** Stands for the lock's key in argument lists: the passes take turns over {@link #KEYS} keys. */
    private static final String KEY = "\u0000key";
    /**
     * Keys the passes take turns over, so that each key's fencing counter is drawn from once every 64
     * passes, far more than a block of 65 microseconds apart: a counter drawn from faster would run ahead
     * of the clock and take the script's second write, which a real lock key does not.
     */
    private static final int KEYS = 64;

    private static final String OWNER = "0f8e2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b:1";
    private static final String CLIENT = "0f8e2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b";
    /** Stands for the grant id in argument lists: the Lua loop puts a new one there on each pass. */
    private static final String GRANT = "\u0000grant";

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

    /** The raw floor's take and drop, and distlock's acquire and release of a free key, whole. */
    static List<Subject> scripts() {
        return List.of(
                pair(
                        "raw floor: its two scripts (SET NX PX; GET, DEL)",
                        RawFloorProvider.TAKE,
                        new String[] {KEY},
                        new String[] {"1", DistlockScriptCall.LEASE_MS},
                        RawFloorProvider.DROP,
                        new String[] {KEY},
                        new String[] {"1"}),
                pair(
                        "distlock: acquire.lua and release.lua (new hold, last release, nobody waiting)",
                        LockScript.ACQUIRE.body(),
                        DistlockScriptCall.acquireKeys(KEY),
                        DistlockScriptCall.acquireArgs(OWNER, GRANT),
                        LockScript.RELEASE.body(),
                        DistlockScriptCall.releaseKeys(KEY, OWNER),
                        DistlockScriptCall.releaseArgs(KEY, OWNER, GRANT, CLIENT)));
    }

    /**
     * Another layout, not distlock's, timed as a yardstick for how much of its scripts' cost a different
     * data model could save: one hash per lock that keeps the fencing counter and the note of the last
     * release besides the hold, with the lease as a field (microseconds of the server clock) rather than
     * the key's TTL, so a release rewrites the hash instead of deleting it and writing a note. Taking a
     * free lock is a read, TIME and a write; releasing it a read, TIME and a write: with the lease a
     * field, no expiry ends the hold, so the release itself must see that the lease ran out (and answer
     * -1, so that its holder is told) where distlock's finds the key gone. It grants the same guarantees
     * on this path (tokens from the counter and the clock, a lease that ran out reported at release), but
     * a weaker note (a repeated release answers 1 only until the lock's next release, distlock's until
     * the note expires) and none of the waiting, re-entry or cohorting ones. It sets the hash's TTL only
     * when it makes the hash; a real one must also keep that TTL from ending under a hold, and keep a
     * note per owner, which costs more, so what it saves is an upper bound.
     * KEYS[1] the hash; take: ARGV[1] owner, ARGV[2] lease in ms, ARGV[3] grant id, ARGV[4] tokens
     * reserved, ARGV[5] TTL of the hash in ms (set when it is made); drop: ARGV[1] owner, ARGV[2] grant.
     */
    static final String ONE_HASH_TAKE = """
            local f = redis.call('HMGET', KEYS[1], 'owner', 'until', 'counter')
            local t = redis.call('TIME')
            local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
            if f[1] and f[1] ~= '' and tonumber(f[2]) > now then return 0 end
            local token = now
            if f[3] and tonumber(f[3]) + 1 > now then token = tonumber(f[3]) + 1 end
            local function digits(n) return string.format('%d', n) end
            redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'req', ARGV[3], 'token', digits(token),
                'until', digits(now + tonumber(ARGV[2]) * 1000), 'counter', digits(token + tonumber(ARGV[4]) - 1))
            if not f[3] then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
            return 1
            """;

    /**
     * See {@link #ONE_HASH_TAKE}: 1 released (also when this grant's release is repeated), -1 not held
     * (or its lease ran out).
     */
    static final String ONE_HASH_DROP = """
            local f = redis.call('HMGET', KEYS[1], 'owner', 'req', 'note', 'until')
            if f[1] == ARGV[1] and f[2] == ARGV[2] then
                local t = redis.call('TIME')
                if tonumber(f[4]) <= tonumber(t[1]) * 1000000 + tonumber(t[2]) then return -1 end
                redis.call('HSET', KEYS[1], 'owner', '', 'note', ARGV[2])
                return 1
            end
            if f[3] == ARGV[2] then return 1 end
            return -1
            """;

    /** {@link #ONE_HASH_TAKE} and {@link #ONE_HASH_DROP} as a pair, with distlock's lease, block and fence TTL. */
    static List<Subject> layout() {
        return List.of(pair(
                "another layout, not distlock's: one hash with the fencing counter, the release note and the lease as"
                        + " fields (HMGET, TIME, HSET; HMGET, TIME, HSET)",
                ONE_HASH_TAKE,
                new String[] {KEY},
                new String[] {
                    OWNER,
                    DistlockScriptCall.LEASE_MS,
                    GRANT,
                    DistlockScriptCall.TOKEN_BLOCK,
                    DistlockScriptCall.FENCE_TTL_MS
                },
                ONE_HASH_DROP,
                new String[] {KEY},
                new String[] {OWNER, GRANT}));
    }

    /**
     * The commands distlock's two scripts send for a free key, each alone, in the order they send them
     * (nobody waited, so the release publishes nothing).
     */
    static List<Subject> steps() {
        String lock = lua(KEY);
        String fence = lua(DistlockScriptCall.acquireKeys(KEY)[1]);
        String note = lua(DistlockScriptCall.releaseKeys(KEY, OWNER)[1]);
        String hold = "redis.call('HSET', " + lock + ", " + lua(OWNER)
                + ", '1', '~token', string.format('%d', 1700000000000000 + i), '~req', req)";
        return List.of(
                Subject.of("acquire: is the lock free (EXISTS)", "redis.call('EXISTS', " + lock + ")", ""),
                new Subject(
                        "acquire: fencing token (TIME; SET counter GET PX: token.lua's nextToken)",
                        LockScript.load("token.lua").body(),
                        "",
                        "",
                        "nextToken(" + fence + ", " + lua(DistlockScriptCall.FENCE_TTL_MS) + ", "
                                + DistlockScriptCall.TOKEN_BLOCK + ")",
                        "redis.call('DEL', " + fence + ")"),
                Subject.of(
                        "acquire: write the hold (HSET owner, token, grant; PEXPIRE); release: delete it (DEL)",
                        hold + " redis.call('PEXPIRE', " + lock + ", " + lua(DistlockScriptCall.LEASE_MS)
                                + ") redis.call('DEL', " + lock + ")",
                        ""),
                new Subject(
                        "release: check the hold (HMGET owner, grant, waiters)",
                        "",
                        hold,
                        "",
                        "redis.call('HMGET', " + lock + ", " + lua(OWNER) + ", '~req', '~w', '~s')",
                        "redis.call('DEL', " + lock + ")"),
                Subject.of(
                        "release: the note that answers a re-sent release (SET PX)",
                        "redis.call('SET', " + note + ", req, 'PX', " + lua(DistlockScriptCall.NOTE_TTL_MS) + ")",
                        "redis.call('DEL', " + note + ")"));
    }

    /**
     * What passing a token-sized Lua number to {@code redis.call} costs over passing its digits as a
     * string (both loops make the string, so only the argument differs), and what making those digits
     * costs.
     */
    static List<Subject> numberArgument() {
        String counter = lua(KEY + ":n");
        String token = "local token = 1700000000000000 + i";
        String digits = "local digits = string.format('%d', token)";
        String prepare = token + " " + digits;
        String cleanup = "redis.call('DEL', " + counter + ")";
        return List.of(
                new Subject(
                        "SET with a 16-digit Lua number",
                        "",
                        "",
                        prepare,
                        "redis.call('SET', " + counter + ", token)",
                        cleanup),
                new Subject(
                        "SET with its digits as a string",
                        "",
                        "",
                        prepare,
                        "redis.call('SET', " + counter + ", digits)",
                        cleanup),
                new Subject(
                        "making a token's digits in Lua, as the scripts do (string.format('%d'))",
                        "", "", token, digits, ""));
    }

    /**
     * The two scripts as Lua functions taking {@code KEYS} and {@code ARGV}, called once each per pass;
     * a pass fails the EVAL unless both answer 1 (taken, released), so a script that refused would not
     * be timed as a fast one.
     */
    private static Subject pair(
            String name,
            String take,
            String[] takeKeys,
            String[] takeArgs,
            String drop,
            String[] dropKeys,
            String[] dropArgs) {
        String definitions =
                "local function take(KEYS, ARGV)\n" + take + "\nend\n" + "local function drop(KEYS, ARGV)\n" + drop
                        + "\nend\n" + "local function first(r) if type(r) == 'table' then return r[1] end return r end";
        String prepare = "local tk, ta, dk, da = " + lua(takeKeys) + ", " + lua(takeArgs) + ", " + lua(dropKeys) + ", "
                + lua(dropArgs);
        String body = "local taken = first(take(tk, ta))\n"
                + "if taken ~= 1 then return redis.error_reply('the take script refused a free key: ' .. tostring(taken)) end\n"
                + "local dropped = first(drop(dk, da))\n"
                + "if dropped ~= 1 then return redis.error_reply('the release script did not release: ' .. tostring(dropped)) end";
        String cleanup = Stream.concat(Stream.of(takeKeys), Stream.of(dropKeys))
                .distinct()
                .map(k -> "redis.call('DEL', " + lua(k) + ")")
                .collect(Collectors.joining(" "));
        return new Subject(name, definitions, "", prepare, body, cleanup);
    }

    /** A Lua expression for {@code s}: {@code req} for {@link #GRANT}, {@code key ..} for a key, else a literal. */
    private static String lua(String s) {
        if (s.equals(GRANT)) {
            return "req";
        }
        if (s.startsWith(KEY)) {
            String rest = s.substring(KEY.length());
            return rest.isEmpty() ? "key" : "key .. " + lua(rest);
        }
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    private static String lua(String[] values) {
        return Stream.of(values).map(ScriptCosts::lua).collect(Collectors.joining(", ", "{", "}"));
    }

    /** Every subject, {@code rounds} times in turn, {@code pairs} passes each, on the Redis at {@code host:port}. */
    static Map<String, List<Cost>> measure(String host, int port, int rounds, int pairs) {
        Map<String, List<Subject>> groups = new LinkedHashMap<>();
        groups.put("scripts", scripts());
        groups.put("steps", steps());
        groups.put("number", numberArgument());
        groups.put("layout", layout());
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

    static String markdown(Map<String, List<Cost>> costs, int rounds, int pairs, String redisVersion) {
        StringBuilder md = new StringBuilder();
        md.append("## Redis time of a lock+unlock of a free key, inside the scripts\n\n");
        md.append("redis-server ")
                .append(redisVersion)
                .append("; ")
                .append(rounds)
                .append(" rounds of ")
                .append(pairs)
                .append(" passes each, timed by Redis itself (one EVAL per subject and round, loop cost taken off); "
                        + "µs per pass, median (min-max over rounds). Not in these figures: the network, the clients, "
                        + "and Redis reading each EVALSHA's arguments.\n\n");
        md.append("| what | µs |\n|---|---:|\n");
        costs.get("scripts").forEach(c -> row(md, c.subject().name(), c.nanos()));
        double sum = 0;
        for (Cost c : costs.get("steps")) {
            row(md, "&nbsp;&nbsp;" + c.subject().name(), c.nanos());
            sum += c.nanos().median();
        }
        double whole = costs.get("scripts").get(1).nanos().median();
        md.append("| &nbsp;&nbsp;sum of these commands alone | ")
                .append(Spread.twoDecimals(sum / 1000))
                .append(" |\n");
        md.append("| &nbsp;&nbsp;the rest: Lua calls, argument tables, replies | ")
                .append(Spread.twoDecimals((whole - sum) / 1000))
                .append(" |\n");
        List<Cost> number = costs.get("number");
        md.append("| a fencing-token-sized Lua number passed to redis.call, over its digits as a string (")
                .append(number.get(0).subject().name())
                .append(" less ")
                .append(number.get(1).subject().name())
                .append(") | ")
                .append(Spread.twoDecimals(
                        (number.get(0).nanos().median() - number.get(1).nanos().median()) / 1000))
                .append(" |\n");
        row(md, number.get(2).subject().name(), number.get(2).nanos());
        costs.get("layout").forEach(c -> row(md, c.subject().name(), c.nanos()));
        return md.toString();
    }

    private static void row(StringBuilder md, String name, Spread nanos) {
        md.append("| ")
                .append(name)
                .append(" | ")
                .append(nanos.format(v -> Spread.twoDecimals(v / 1000)))
                .append(" |\n");
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
            out.println(markdown(measure(redis.host(), redis.port(), rounds, pairs), rounds, pairs, version));
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
