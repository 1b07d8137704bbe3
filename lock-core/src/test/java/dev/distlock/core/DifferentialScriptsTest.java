package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.internal.redis.script.ScriptRunner;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisExtension;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The differential check of the script tests is not vacuous: Redis' Lua conversions that MemoryRedis
 * copies agree with the real Redis, and the one difference known (LuaJ's {@code ..} on a 16-digit
 * number) is caught and reported.
 */
@Timeout(60)
class DifferentialScriptsTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final LockScript CASES = LockScript.load("memory-cases.lua");
    private static final LockScript CONCAT = LockScript.load("memory-concat.lua");
    private static final LockScript COMMANDS = LockScript.load("memory-commands.lua");

    private RedisProbe probe;
    private DifferentialScripts differential;
    private ScriptRunner scripts;
    private final String tag = "{" + Names.fresh("differential") + "}";

    @BeforeEach
    void connect() throws Exception {
        probe = RedisProbe.connect(redis.server());
        differential = new DifferentialScripts(redis.server(), probe.async(), CASES, CONCAT, COMMANDS);
        scripts = new ScriptRunner(differential.commands());
    }

    @AfterEach
    void close() {
        differential.close();
        probe.close();
    }

    @Test
    void replyAndArgumentConversionsAgreeWithRedis() throws Exception {
        String[] keys = {tag + "a", tag + "b"};
        assertThat(scripts.array(CASES, keys, "reply").get(5, TimeUnit.SECONDS))
                .containsExactly(1L, "a", null, 3L, -3L, 1L);
        assertThat(scripts.array(CASES, keys, "status").get(5, TimeUnit.SECONDS))
                .containsExactly("OK");
        assertThat(scripts.array(CASES, keys, "numbers").get(5, TimeUnit.SECONDS))
                .containsExactly("1764000000123456", "1e+15", "0.33333333333333", "12", "1.5");
        probe.sync().del(keys);
        probe.sync().hset(keys[0], "f", "v");
        assertThat(scripts.array(CASES, keys, "pcall").get(5, TimeUnit.SECONDS))
                .containsExactly("table", "WRONGTYPE Operation against a key holding the wrong kind of value");
        assertThatThrownBy(() -> scripts.array(CASES, keys, "wrongtype").get(5, TimeUnit.SECONDS))
                .hasMessageContaining("WRONGTYPE");
        assertThat(differential.finish()).isEmpty();
        assertThat(differential.compared.get()).isEqualTo(5);
    }

    /**
     * Each emulated command, options and errors included, as the scripts call it and past that, agrees
     * with Redis in reply (as Lua sees it, through redis.pcall) and in the state it leaves.
     */
    @Test
    void everyEmulatedCommandAgreesWithRedis() throws Exception {
        String s = tag + "s", h = tag + "h", l = tag + "l", z = tag + "z", n = tag + "n";
        String commands = String.join(
                " | ",
                "SET " + s + " v PX 100000",
                "GET " + s,
                "SET " + s + " w KEEPTTL",
                "PTTL " + s,
                "SET " + s + " x NX",
                "SET " + s + " y XX GET",
                "SET " + n + " v NX GET",
                "DEL " + n + " " + n,
                "GET " + h,
                "HSET " + h + " a 1 b 2",
                "SET " + h + " x GET",
                "HSETNX " + h + " a 3",
                "HMGET " + h + " a zz b",
                "HDEL " + h + " a zz",
                "HSET " + h + " a 4",
                "HGETALL " + h,
                "HEXISTS " + h + " a",
                "HGET " + h + " b",
                "RPUSH " + l + " a b a c a",
                "LREM " + l + " -2 a",
                "LRANGE " + l + " 0 -1",
                "LRANGE " + l + " -2 10",
                "LINDEX " + l + " -1",
                "LINDEX " + l + " 5",
                "LPOP " + l,
                "LPOP " + l + " 5",
                "LPOP " + l,
                "EXISTS " + l,
                "ZADD " + z + " 1.5 a 0.1 b 1764000000000 c",
                "ZSCORE " + z + " b",
                "ZSCORE " + z + " c",
                "ZREM " + z + " a x",
                "ZADD " + z + " x a",
                "EXISTS " + s + " " + h + " " + l + " " + z + " " + s,
                "PEXPIRE " + h + " 50000",
                "PEXPIRE " + h + " 1000 GT",
                "PEXPIRE " + h + " 1000 LT",
                "PTTL " + h,
                "PEXPIRE " + n + " 100",
                "PTTL " + n,
                "HSET " + h + " a",
                "PEXPIRE " + h + " abc",
                "SET " + s + " v PX 0",
                "SET " + s + " v EX 1 PX 1",
                "LINDEX " + l + " x",
                "PUBLISH " + tag + "channel hello",
                "GET");
        List<Object> lines = scripts.array(COMMANDS, new String[] {s, h, l, z, n}, commands.split(" "))
                .get(5, TimeUnit.SECONDS);
        assertThat(lines).hasSize(commands.split(" \\| ").length);
        assertThat(differential.finish()).isEmpty();
        assertThat(differential.compared.get()).isEqualTo(1);
    }

    @Test
    void aDifferenceIsReportedNamingTheCallAndBothSides() throws Exception {
        assertThat(scripts.array(CONCAT, new String[] {tag}, "1764000000123456").get(5, TimeUnit.SECONDS))
                .as("the caller gets Redis' reply")
                .containsExactly("1.7640000001235e+15");
        List<String> mismatches = differential.finish();
        assertThat(mismatches).hasSize(1);
        assertThat(mismatches.get(0))
                .contains("MemoryRedis differs from Redis [replies] on memory-concat.lua")
                .contains("ARGV [1764000000123456]")
                .contains("Redis:  reply [1.7640000001235e+15]")
                .contains("memory: reply [1764000000123456]");
    }
}
