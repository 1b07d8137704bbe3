package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.internal.redis.script.ScriptRunner;
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

    private RedisProbe probe;
    private DifferentialScripts differential;
    private ScriptRunner scripts;
    private final String tag = "{" + Names.fresh("differential") + "}";

    @BeforeEach
    void connect() throws Exception {
        probe = RedisProbe.connect(redis.server());
        differential = new DifferentialScripts(redis.server(), probe.async(), CASES, CONCAT);
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
