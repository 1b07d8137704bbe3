package dev.distlock.benchmark;

import dev.distlock.benchmark.ScriptCosts.Subject;
import dev.distlock.core.internal.redis.script.LockScript;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What {@link ScriptCosts} times: the raw floor's and distlock's scripts whole, each command distlock's
 * scripts send on a free key's lock+unlock alone, what a number argument costs, and another layout as a
 * yardstick; each as a {@link ScriptCosts.Subject} whose Lua the harness runs in its loop.
 */
final class ScriptCostSubjects {

    /** Stands for the lock's key in argument lists: the passes take turns over {@link ScriptCosts#KEYS} keys. */
    private static final String KEY = "\u0000key";

    private static final String OWNER = "0f8e2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b:1";
    private static final String CLIENT = "0f8e2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b";
    /** Stands for the grant id in argument lists: the Lua loop puts a new one there on each pass. */
    private static final String GRANT = "\u0000grant";

    private ScriptCostSubjects() {}

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
        return Stream.of(values).map(ScriptCostSubjects::lua).collect(Collectors.joining(", ", "{", "}"));
    }
}
